"""The template tag library ``sansio_auth``: ``{% load sansio_auth %}``."""
