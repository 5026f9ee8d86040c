"""What the command line and the web both show, made once and printed by neither: the lines a
game is told in (``lines``), the teaching preview and hint (``teach``), the top moves of a
position (``analyze``), the replay page (``replay_page``) and strict JSON (``strict_json``).

A library below azul_cli and web (and kinds, which writes strict JSON): it returns text, data
and HTML, and never prints; it imports neither azul_cli nor web.
"""
