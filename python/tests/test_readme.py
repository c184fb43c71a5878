"""The README's examples run as written (on the device under test)."""
import os
import re

import pytest

import conftest

README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def examples():
    text = open(README).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return [b for b in blocks if "cmetal.Device(" in b]


@pytest.mark.parametrize("code", examples(), ids=["vadd", "linear"])
def test_readme_example(code):
    code = code.replace('cmetal.Device("cpu")', f'cmetal.Device("{conftest.DEVICE}")')
    exec(compile(code, "README.md", "exec"), {})
