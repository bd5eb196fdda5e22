"""sust.p UNORM8 conversion: the H200 truncates x to 12 fraction bits before scaling by 255
(samples from tests/goldens/conformance/surface.npz, docs/hardware-notes.md)."""
import numpy as np

from ptxvm.engine.texture.format import convert

# (f32 bits, the byte the H200 stored)
H200 = [
    (0x3E819810, 64),    # 0.25311327: x * 255 = 64.544 (sust.p.2d.v4.b32.trap#unorm8x4_ties)
    (0x3F7078BB, 239),   # 0.9393422: 239.532
    (0x3CF14703, 7),     # 0.029452806: 7.510
    (0x3F6267EF, 225),   # 0.8843984: 225.522 (sust.p.a2d.v4.b32.zero#unorm8x4_a2d)
    (0x3F000000, 127),   # 0.5: exact tie, toward zero
    (0x3BC0C0C1, 1),     # 1.5/255 + 1 ulp
    (0x3F800000, 255), (0x7FC00000, 0), (0xBF800000, 0), (0x7F800000, 255),
]


def test_unorm8_matches_h200():
    bits = np.array([b for b, _ in H200], np.uint32)
    assert convert(np.uint8, bits, True).tolist() == [v for _, v in H200]
