"""Charts readable at every size the app allows (#27.4), measured in Chromium from the boxes the browser drew:
the Induction grids' Hangul key names (14 tokens) stacked upright, not turned into a jumble; the Masks page's
"−∞" marks each in its own cell, none running into the next; the Heads page's q/k map at 38 tokens writing no name
over another. (The ⤓ PNG export: test_canvas_png_browser.py; the texts: tests/unit/test_chart_sizes.py.)"""
from __future__ import annotations

import pytest
from harness.chromium import goto

pytestmark = pytest.mark.browser

KO7 = "나는 오늘 학교에서 친구와 맛있는 점심을 먹었다"
KO38 = " ".join(["나는", "오늘", "학교에서", "친구와", "맛있는", "점심을", "먹었다", "그리고", "도서관에", "가서",
                 "책을", "읽었다"] * 3 + ["끝", "이다"])

_BOXES_JS = """(root, sel) => [...root.querySelectorAll(sel)].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return [t.textContent, r.left, r.top, r.right, r.bottom, t.closest('[transform*=rotate]') !== null
            || (t.getAttribute('transform') || '').includes('rotate')]; })"""


def boxes(page, key: str, selector: str) -> list:
    return page.locator(f".st-key-{key}").evaluate(_BOXES_JS, selector)


def overlaps(found: list, slack: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of drawn text boxes that overlap by more than ``slack`` px both ways."""
    out = []
    for n, a in enumerate(found):
        for b in found[n + 1:]:
            if min(a[3], b[3]) - max(a[1], b[1]) > slack and min(a[4], b[4]) - max(a[2], b[2]) > slack:
                out.append((a[0], b[0]))
    return out


def test_induction_grids_stack_hangul_key_names_without_overlaps(page, server):
    goto(page, "induction", lang="ko", ind_steps=30, ind_at=30, text=KO7)
    for key in ("ind_grid_l1", "ind_grid_l2"):
        ticks = boxes(page, key, ".xaxislayer-above .xtick text")
        assert len(ticks) >= 14, (key, len(ticks))  # 14 tokens named under each panel
        assert not any(t[5] for t in ticks), f"{key}: turned key names"
        assert "학교에서" in {t[0] for t in ticks}  # a stacked name reads as its word (one line per character)
        first = sorted(ticks, key=lambda t: t[1])[:14]  # the first panel's
        assert not overlaps(first), (key, overlaps(first)[:5])


def test_masked_scores_marks_do_not_run_together(page, server):
    goto(page, "masks", lang="ko", mk_kind="causal")  # the default sentence: 5 tokens, 10 cells −∞
    marks = [b for b in boxes(page, "mk_scores_chart", "text") if b[0] == "−∞"]
    assert len(marks) == 10, marks
    assert not overlaps(marks, slack=0.0), overlaps(marks, slack=0.0)[:5]
    gaps = sorted(b[1] for b in marks if abs(b[2] - marks[0][2]) < 1)  # one row's marks, left to right
    widths = [b[3] - b[1] for b in marks]
    assert all(g2 - g1 >= max(widths) + 2 for g1, g2 in zip(gaps, gaps[1:])), (gaps, widths)


def test_heads_qk_map_writes_no_name_over_another_at_38_tokens(page, server):
    goto(page, "heads", lang="ko", hd_section="qk", d_model=128, num_heads=16, text=KO38)
    names = boxes(page, "heads_qk_chart", ".scatterlayer .textpoint text")
    assert len(names) >= 20, len(names)  # many names still written, the rest on hover
    assert not overlaps(names), overlaps(names)[:5]
