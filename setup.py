"""Builds the compiled core (engine/_core.pyx); everything else is declared in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension("engine._core", ["engine/_core.pyx"], extra_compile_args=["-O3", "-funroll-loops"]),
]

setup(ext_modules=cythonize(extensions, language_level=3))
