"""Battle.net (OpenID Connect): the issuer is the region's."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="battlenet",
    name="Battle.net",
    type="oidc",
    factory="BattleNet",
    issuer_required="the region's, one of ``https://oauth.battle.net``, "
    "``https://oauth.battlenet.com.cn``, ``https://www.battlenet.com.cn/oauth`` or "
    "``https://{us,eu,kr,tw}.battle.net/oauth``",
    profile=ProfileMap(id="sub", name="battle_tag"),
    style=ProviderStyle(bg="#148eff", text="#fff"),
    setup="https://develop.battle.net/access/clients",
    notes="Battle.net gives no e-mail or picture: the name is the BattleTag (`Name#1234`).",
)
