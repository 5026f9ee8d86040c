"""``python -m tournament run CONFIG`` is ``azul league run CONFIG``."""
from .cli import app

app(prog_name="python -m tournament")
