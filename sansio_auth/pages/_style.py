"""The built-in pages' stylesheet (inlined: the engine reads no files)."""

CSS = """
:root{--brand-color:#346df1;--button-text-color:#fff;--border-radius:.5rem;
--color-background:#ececec;--color-background-card:#fff;--color-text:#111;
--color-secondary:#666;--color-border:#ddd;--color-error:#b42318;--color-info:#175cd3;
--color-disabled:#e4e4e7;--color-disabled-text:#71717a}
@media (prefers-color-scheme:dark){.theme-auto{--color-background:#161b22;
--color-background-card:#0d1117;--color-text:#f0f0f0;--color-secondary:#9aa4b2;
--color-border:#30363d;--color-disabled:#21262d;--color-disabled-text:#7d8590}}
.theme-dark{--color-background:#161b22;--color-background-card:#0d1117;--color-text:#f0f0f0;
--color-secondary:#9aa4b2;--color-border:#30363d;--color-disabled:#21262d;
--color-disabled-text:#7d8590}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
background:var(--color-background);color:var(--color-text);
font:16px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.page{width:100%;max-width:24rem;padding:1rem}
.logo{display:block;max-width:9rem;max-height:4.5rem;margin:0 auto 1.5rem}
.card{background:var(--color-background-card);border:1px solid var(--color-border);
border-radius:var(--border-radius);padding:1.5rem 1.75rem;box-shadow:0 1px 3px #0001}
h1{font-size:1.35rem;margin:0 0 1rem;text-align:center}
p{margin:0 0 1rem;color:var(--color-secondary);text-align:center}
form{margin:0}
label{display:block;font-weight:500;font-size:.9rem;margin:.75rem 0 .25rem}
input{display:block;width:100%;padding:.6rem .75rem;font:inherit;color:inherit;
background:transparent;border:1px solid var(--color-border);border-radius:var(--border-radius)}
input:focus{outline:2px solid var(--brand-color);outline-offset:1px}
button{display:flex;align-items:center;justify-content:center;gap:.6rem;width:100%;
margin-top:1rem;padding:.65rem 1rem;font:inherit;font-weight:600;cursor:pointer;
color:var(--button-text-color);background:var(--brand-color);border:1px solid transparent;
border-radius:var(--border-radius)}
button:hover{filter:brightness(1.08)}
button:disabled{cursor:not-allowed;filter:none;color:var(--color-disabled-text);
background:var(--color-disabled);border-color:var(--color-border)}
button img{width:1.4rem;height:1.4rem}
.provider button{color:var(--provider-text,#111);background:var(--provider-bg,#fff);
border-color:var(--color-border)}
hr{border:0;border-top:1px solid var(--color-border);margin:1.5rem 0}
.error{background:#fef3f2;color:var(--color-error);border:1px solid #fecdca;
border-radius:var(--border-radius);padding:.6rem .8rem;margin:0 0 1rem;text-align:center}
a.button{display:block;text-align:center;margin-top:1rem;color:var(--brand-color)}
.debug{border:1px dashed var(--color-border);border-radius:var(--border-radius);
padding:.6rem .8rem;margin:0 0 1rem}.debug p{text-align:left;margin:0 0 .5rem}
.info{background:#eff8ff;color:var(--color-info);border:1px solid #b2ddff;
border-radius:var(--border-radius);padding:.6rem .8rem;margin:0 0 1rem;text-align:center}
label.check{display:flex;align-items:center;gap:.5rem;font-weight:400}
label.check input{width:auto;display:inline}
.qr{display:flex;justify-content:center;margin:0 0 1rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
ul.codes{display:grid;grid-template-columns:1fr 1fr;gap:.4rem 1rem;list-style:none;padding:0;
margin:0 0 1rem;text-align:center}
details{margin-top:1rem}summary{cursor:pointer;color:var(--color-secondary)}
"""
