"""WCAG relative luminance: page pixels (8-bit) by table look-up give exactly what the formula gives."""

from __future__ import annotations

import numpy as np

from common.colour import WEIGHTS, linear_table, luminance, luminance_array


def test_eight_bit_pixels_give_the_same_luminance_as_the_formula_bit_for_bit() -> None:
    pixels = np.random.default_rng(7).integers(0, 256, size=(120, 97, 3), dtype=np.uint8)
    pixels[0, :3] = [[0, 0, 0], [255, 255, 255], [10, 10, 10]]  # both ends and the linear segment under the knee
    by_table = luminance_array(pixels)
    by_formula = luminance_array(pixels.astype(np.float64))
    assert by_table.shape == (120, 97) and by_table.dtype == np.float64
    assert np.array_equal(by_table, by_formula)
    assert by_table[0, 0] == 0.0 and by_table[0, 1] == 1.0
    region = pixels[5:40, 7:60].reshape(-1, 3)  # a figure's box, as the contrast rules take it
    assert np.array_equal(luminance_array(region), luminance_array(region.astype(float)))


def test_the_shared_table_cannot_be_changed_through_a_copy() -> None:
    table = linear_table()
    table[:] = 0
    assert luminance_array(np.array([[255, 255, 255]], dtype=np.uint8))[0] == 1.0
    assert abs(sum(WEIGHTS) - 1.0) < 1e-12


def test_an_array_of_colours_matches_the_scalar_formula() -> None:
    colours = [(0, 0, 0), (255, 255, 255), (118, 118, 118), (10, 200, 30)]
    values = luminance_array(np.array(colours, dtype=np.uint8))
    assert [round(float(v), 12) for v in values] == [round(luminance([x / 255 for x in c]), 12) for c in colours]
