"""For pip and setuptools that predate pyproject.toml (Ubuntu 18.04's); metadata: setup.cfg."""
from setuptools import setup

setup()
