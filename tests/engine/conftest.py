import pathlib

import pytest

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "ptx"


@pytest.fixture
def corpus():
    import ptxvm

    def load(stem: str, variant: str = "sm_90"):
        return ptxvm.load(CORPUS / f"{stem}.{variant}.ptx")

    return load
