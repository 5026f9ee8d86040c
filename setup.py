"""Builds the compiled parts (engine core, random playouts, RL observations, bot policies, the policy
prior, MCTS, seeds, the league loop); the rest is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

FLAGS = ["-O3", "-funroll-loops"]

extensions = [
    Extension("engine._core", ["engine/_core.pyx"], extra_compile_args=FLAGS),
    Extension("engine._playouts", ["engine/_playouts.pyx"], extra_compile_args=FLAGS),
    Extension("engine._rl", ["engine/_rl.pyx"], extra_compile_args=FLAGS),
    Extension("bots._policies", ["bots/_policies.pyx"], extra_compile_args=FLAGS),
    Extension("bots._evaluators", ["bots/_evaluators.pyx"], extra_compile_args=FLAGS),
    Extension("bots._prior", ["bots/_prior.pyx"], extra_compile_args=FLAGS),
    Extension("bots._mcts", ["bots/_mcts.pyx"], extra_compile_args=FLAGS),
    Extension("tournament._seeds", ["tournament/_seeds.pyx"], extra_compile_args=FLAGS),
    Extension("tournament._fastloop", ["tournament/_fastloop.pyx"], extra_compile_args=FLAGS),
]

setup(ext_modules=cythonize(extensions, language_level=3, include_path=["."]))
