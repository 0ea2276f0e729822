"""What Plotly writes in a real browser for a repeated piece of a pretrained view (issue #26.6): its hover, the
category through the axis's ``labelalias`` (``figures.readable_ticks``; its ticks sit past the category), names
the raw piece and holds no invisible character. ``tests/app/test_invisible_labels.py`` checks every chart's spec."""
from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest
from harness.chromium import goto

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tiny_models  # noqa: E402

pytestmark = pytest.mark.browser
TEXT = "the cat and the cat playing"


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    return tiny_models.build("gpt2", tmp_path_factory.mktemp("invisible_browser") / "gpt2")


def test_the_hover_of_a_repeated_raw_piece_names_it_without_invisible_characters(page, server, gpt2):
    goto(page, "masks", timeout_ms=120_000, source="pretrained", model=str(gpt2), text=TEXT)
    page.wait_for_selector(".js-plotly-plot .xtick text", timeout=60_000)
    # Every category of the last chart's x axis that is a repeat (zero-width spaces in its name), as the page
    # coordinates of a cell in its column.
    cells = page.evaluate("""() => {
        const gd = [...document.querySelectorAll('.js-plotly-plot')].pop();
        gd.scrollIntoView({block: 'center'});
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
        return xa._categories.map((c, i) => [c, box.left + xa._offset + xa.c2p(i),
                                             box.top + ya._offset + ya.c2p(ya._categories.length - 1)])
                             .filter(([c]) => c.includes('\\u200b'));
    }""")
    assert cells, "no repeated category on the chart"
    hovers = []
    for _, x, y in cells:
        page.mouse.move(x - 3, y - 3)
        page.mouse.move(x, y)
        page.wait_for_selector(".hoverlayer .hovertext", timeout=10_000)
        hovers.append(page.evaluate("() => document.querySelector('.hoverlayer .hovertext').textContent"))
        page.mouse.move(1, 1)
    assert any("cat · Ġcat" in h for h in hovers), hovers  # the raw piece is named ...
    bad = [h for h in hovers if any(unicodedata.category(ch) == "Cf" for ch in h)]
    assert not bad, [h.encode("unicode_escape") for h in bad]  # ... and nothing invisible comes with it
