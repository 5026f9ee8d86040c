"""``python -m azul_cli ...`` is the ``azul`` command."""
from .main import app

app(prog_name="azul")
