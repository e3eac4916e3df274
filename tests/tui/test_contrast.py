"""Contrast: every text the panes draw meets WCAG AA (4.5:1 against its background) in the
default theme and in a light one; the ratios are computed from the theme's resolved styles."""
from __future__ import annotations

import pytest
from textual.color import Color

from workbench.tui.tree_table import TreeTable

from tui_testing import TINY, make_app, press, settle

pytestmark = pytest.mark.asyncio
AA = 4.5
TEXT = ("#graph-summary", "#passes-summary", "#status", "#panebar", "KeyBar",
        "#memory-summary", "#command")


def _luminance(c: Color) -> float:
    def channel(v: int) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)


def contrast(a: Color, b: Color) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _ratios(app) -> dict[str, float]:
    out = {}
    for table in app.query(TreeTable):
        base = table.rich_style
        for cls in sorted(TreeTable.COMPONENT_CLASSES):
            style = base + table.get_component_rich_style(cls)
            fg, bg = style.color, style.bgcolor
            if style.reverse:
                fg, bg = bg, fg
            out[f"{table.id} {cls}"] = contrast(Color.from_rich_color(fg),
                                                Color.from_rich_color(bg))
    for selector in TEXT:
        for widget in app.query(selector):
            style = widget.rich_style
            out[selector] = contrast(Color.from_rich_color(style.color),
                                     Color.from_rich_color(style.bgcolor))
    return out


@pytest.mark.parametrize("theme", ["textual-dark", "workbench-light"])
async def test_every_text_meets_wcag_aa_in_the_theme(theme):
    app = make_app(TINY)
    async with app.run_test(size=(160, 50)) as pilot:
        app.theme = theme
        await settle(pilot)
        await press(pilot, "f10")
        ratios = _ratios(app)
        assert any("tree-table--group" in k for k in ratios)   # the stage header rows
        low = {k: round(v, 2) for k, v in ratios.items() if v < AA}
        assert not low, low
