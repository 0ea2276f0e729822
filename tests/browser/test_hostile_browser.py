"""Hostile input in a real browser (headless Chromium): what a visitor can type or put in a link must be shown as
plain text, never run, never styled, never turned into a link, and must not blow up a chart.

Tokens carrying HTML, Markdown, ``javascript:`` links, style attributes, 300-character words, right-to-left
overrides, control characters and emoji sequences go through the sidebar text box and through links, on the
Playground, Step by step and Heads (plus the notes in the sidebar, the link box and the cell breakdown). Passing
means, on every page:

- no dialog and no console error (the ``page`` fixture fails the test on either);
- no live link: every ``<a href>`` in the document (HTML or SVG) points into the app itself;
- no markup made from input: no image, script, frame, style, maths or coloured text inside rendered Markdown, no
  link or styled span inside a chart's tick label, no font larger than a title, no HTML entity shown as text;
- every token displayed as typed: each drawn tick label equals ``mha.core.tokens.display_labels`` of the tokens (NFC,
  invisible controls removed, at most 16 characters with an ellipsis), at its own position; the Playground's canvas
  heatmaps (tests/browser/canvas.py) draw the same labels and their tooltips show them as text, with no element
  made from them;
- plots keep a sane size and nothing widens the page sideways.

Sentences stay under ~25 tokens so that Plotly labels every row and column of the large heatmaps.
"""
from __future__ import annotations

import time
import urllib.parse

import pytest
from harness.chromium import goto, wait_app_idle

from mha.core.i18n import text as i18n_text
from mha.core.tokens import MAX_LABEL_CHARS, display_labels, safe_label, tokenize

from . import canvas as cv
from .conftest import click_nav, copy_share_link, save_screenshot, wait_for_link_box

pytestmark = pytest.mark.browser

ZWSP = "\u200b"  # figures.axis_labels makes repeated labels unique with zero-width spaces

# Each is one sentence (no newline: a newline starts a second sentence of a batch).
HTML = '<b>x</b> <img src=x onerror=alert(1)>'
SCRIPT_STYLE = '<script>alert(2)</script> <span style="font-size:200px">'
MARKDOWN = '**bold** [link](javascript:alert(1)) __init__ `x` $y$'
# \x85 (NEL) and \x0b are controls, removed like the others: not line breaks that would start a second sentence.
ODD = ("w" * 300 + " \u202eevil\u202c bell\x07 esc\x1b[31m del\x7f nel\u0085 vt\x0b zw\u200bsp "
       "👨\u200d👩\u200d👧\u200d👦 👍🏽 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f 🇰🇷 "
       "e\u0301 שלום")
SHORT_LONG = "w" * 300 + " is a very long word in here"  # few rows under a long, slanted key label
MIXED = ('<img src=x onerror=alert(1)> **b** __init__ ' + "w" * 300
         + " \u202eabc 👨\u200d👩\u200d👧\u200d👦 \x07")


def en(key: str, **fmt) -> str:
    return i18n_text(key, "en", **fmt)


def labels_of(text: str) -> list[str]:
    """The documented cleaning: what every chart must show for this text, one label per position."""
    return display_labels(tokenize(text).tokens)


def test_the_sentences_really_are_hostile():
    """Guard on the inputs themselves: the cleaning has something to remove, cut and keep together."""
    odd = labels_of(ODD)
    assert odd[0] == "w" * (MAX_LABEL_CHARS - 1) + "…"
    assert "evil" in odd and "bell" in odd and "é" in odd and "שלום" in odd  # \u202e, \x07 gone; NFC
    assert "👨\u200d👩\u200d👧\u200d👦" in odd  # a ZWJ family is one token
    assert tokenize(ODD).removed >= 7
    for text in (HTML, SCRIPT_STYLE, MARKDOWN, ODD, MIXED):
        assert 10 <= len(labels_of(text)) <= 25, text
    assert len(labels_of(SHORT_LONG)) == 8


# ------------------------------------------------------------------------------------------------ DOM helpers
def drawn_ticks(page, chart_key: str, axis: str) -> list[tuple[int, str]]:
    """The tick labels drawn on the first subplot's ``axis`` as (category index, text without zero-width spaces).
    Plotly keeps each tick's value on the element (``__data__.x``: the category's index)."""
    ticks = page.locator(f".st-key-{chart_key} .cartesianlayer .subplot.xy .{axis}axislayer-above g.{axis}tick"
                         ).evaluate_all("gs => gs.map(g => [g.__data__ ? g.__data__.x : -1, g.textContent])")
    return sorted((int(i), s.replace(ZWSP, "")) for i, s in ticks)


def wait_for_tokens(page, chart_key: str, axis: str, labels: list[str], every: bool = True,
                    timeout_s: float = 20) -> None:
    """Wait until the chart's ticks on ``axis`` show these labels, each at its own position; with ``every``, all of
    them (else Plotly may skip some when they would overlap, and each one drawn must still be right)."""
    deadline = time.monotonic() + timeout_s
    while True:
        shown = drawn_ticks(page, chart_key, axis)
        ok = bool(shown) and all(0 <= i < len(labels) and s == labels[i] for i, s in shown)
        if ok and (not every or [i for i, _ in shown] == list(range(len(labels)))):
            return
        assert time.monotonic() < deadline, (
            f"{chart_key} {axis} ticks:\n{shown}\nexpected (index, label):\n{list(enumerate(labels))}")
        page.wait_for_timeout(200)


def open_heads_section(page, section: str) -> None:
    """Click a section of the Heads page (by its English title without the icon) and wait for it."""
    words = en(f"hd_sec_{section}").split(" ", 1)[1]
    page.locator(".st-key-hd_section_pick button", has_text=words).click()
    wait_app_idle(page, rerun=True)


def chart_title(page, chart_key: str) -> str:
    return page.locator(f".st-key-{chart_key} .gtitle").first.text_content().replace(ZWSP, "")


_PROBLEMS_JS = r"""() => {
  const out = {links: [], markup: [], big_fonts: [], tick_fonts: [], tick_markup: [], entities: [], sizes: [],
               overflow: []};
  const short = e => e.outerHTML.slice(0, 200);
  const all = (root, sel) => [...root.querySelectorAll(sel), ...[...root.querySelectorAll('*')]
    .filter(e => e.shadowRoot).flatMap(e => all(e.shadowRoot, sel))];  // open shadow roots too (components)
  for (const a of all(document, 'a')) {  // HTML and SVG links
    const href = a.getAttribute('href') ?? a.getAttribute('xlink:href');
    if (href === null) continue;
    let inside = href.startsWith('#');
    if (!inside) { try { inside = new URL(href, location.href).origin === location.origin; } catch (e) {} }
    if (!inside) out.links.push(short(a));
  }
  const entity = /&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/i;
  for (const root of document.querySelectorAll("[data-testid='stMain'], [data-testid='stSidebar']")) {
    for (const e of root.querySelectorAll("[data-testid='stMarkdownContainer'] :is(img, script, iframe, object, "
        + "embed, style, .katex, .stMarkdownColoredText, [style*='font-size'], [style*='color'])"))
      out.markup.push(short(e));
    for (const e of root.querySelectorAll('*')) {
      const px = parseFloat(getComputedStyle(e).fontSize);
      if (px > 64) out.big_fonts.push(`${e.tagName} ${px}px: ${e.textContent.slice(0, 60)}`);
    }
    const m = root.innerText.match(entity);
    if (m) out.entities.push(root.innerText.slice(Math.max(0, m.index - 40), m.index + 40));
  }
  for (const t of document.querySelectorAll('.js-plotly-plot :is(.xtick, .ytick) text')) {
    const px = parseFloat(getComputedStyle(t).fontSize);
    if (!(px > 0 && px <= 16)) out.tick_fonts.push(`${px}px: ${t.textContent}`);
    if (t.querySelector('a, tspan[style]')) out.tick_markup.push(short(t));
  }
  for (const t of document.querySelectorAll('.js-plotly-plot text'))
    if (entity.test(t.textContent)) out.entities.push(t.textContent);
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const r = gd.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // in a closed tab
    if (r.width < 150 || r.width > innerWidth || r.height < 100 || r.height > 2500) {
      const key = [...(gd.closest("[class*='st-key-']")?.classList || [])].find(c => c.startsWith('st-key-'));
      out.sizes.push(`${key}: ${Math.round(r.width)} x ${Math.round(r.height)}`);
    }
  }
  for (const sel of ["[data-testid='stMainBlockContainer']", "[data-testid='stSidebarContent']"]) {
    const e = document.querySelector(sel);
    if (e && e.scrollWidth > e.clientWidth + 2) out.overflow.push(`${sel}: ${e.scrollWidth} > ${e.clientWidth}`);
  }
  return out;
}"""


def assert_canvases_show_text(page, labels: list[str], where: str) -> None:
    """The Playground's grid and enlarged head (canvases): every token label drawn as ``labels`` says, no element
    made from a token inside them, a sane size inside their column, and the tooltip of the most hostile cell (its
    longest query and key) names them as plain text."""
    for key in ("grid", "one_head_chart"):
        cv.wait_for_labels(page, key, "y", labels)
        if key == "one_head_chart" or cv.labels(page, key, "x"):
            assert cv.axis_texts(page, key, "x") == labels, (where, key)
        else:  # too many keys to name under each small panel: the note says to hover
            assert cv.note(page, key) == en("ch_keys_on_hover"), (where, key)
        root = cv.chart(page, key)
        assert not cv.foreign_elements(page, key), (where, key, cv.foreign_elements(page, key))
        w, h, room = root.evaluate("r => { const c = r.querySelector('canvas');"
                                   " return [c.getBoundingClientRect().width, c.getBoundingClientRect().height,"
                                   " r.getBoundingClientRect().width]; }")
        assert 150 <= w <= room + 1 and 100 <= h <= 2500, (where, key, w, h, room)
    i = max(range(len(labels)), key=lambda n: (len(labels[n]), n))
    j = min(range(len(labels)), key=lambda n: (-len(labels[n]), n))
    tip = cv.hover_cell(page, "one_head_chart", 0, i, j)
    assert tip.split("\n")[1:3] == [f"query {i}: {labels[i]}", f"key {j}: {labels[j]}"], (where, tip)
    assert page.locator(".st-key-one_head_chart .hm-tip").evaluate("t => t.childElementCount") == 0, where
    page.mouse.move(0, 0)


def assert_nothing_injected(page, where: str) -> None:
    problems = {k: v for k, v in page.evaluate(_PROBLEMS_JS).items() if v}
    assert not problems, f"{where}: " + "\n".join(f"{k}: {v}" for k, v in problems.items())


def set_text(page, text: str) -> None:
    """Type a sentence into the sidebar text box the way a learner does (Ctrl+Enter applies it)."""
    box = page.locator(".st-key-text textarea")
    box.fill(text)
    box.press("Control+Enter")
    wait_app_idle(page, rerun=True)
    assert box.input_value() == text, "the text box must keep the text exactly as typed"


def markdown_text(page, containing: str) -> str:
    """The rendered text of the (first) Markdown block in the main area that contains ``containing``."""
    blocks = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer']").filter(has_text=containing)
    return blocks.first.inner_text().replace("\n", " ").replace(WORD_JOINER, "").strip()


def sidebar_texts(page) -> str:
    return " ".join(page.locator("[data-testid='stSidebar'] :is([data-testid='stAlert'], "
                                 "[data-testid='stCaptionContainer'])").all_inner_texts()).replace("\n", " ").replace(
        WORD_JOINER, "")


# mha.core.markup.escape_markdown puts this invisible character after ':' and '@' (and inside 'www.' and arrows) so that
# Streamlit's auto-links and :emoji: rewrites cannot fire: it is on the page, but not something a visitor sees.
WORD_JOINER = "\u2060"


# ------------------------------------------------------------------------------------------------------ tests
def test_playground_shows_hostile_tokens_as_plain_text(page, server):
    """Five hostile sentences, the first by link and the others typed into the sidebar text box; then a cell of
    hostile tokens clicked open, and the link box."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    # the folded cell breakdown open (#16.3): hostile tokens reach its charts too (the outputs: at the end)
    goto(page, f"{server.url}/playground?" + urllib.parse.urlencode({"text": HTML, "show_cell": "true"}))
    for n, text in enumerate((HTML, SCRIPT_STYLE, MARKDOWN, ODD, SHORT_LONG)):
        if n:
            set_text(page, text)
        labels = labels_of(text)
        assert page.locator(".st-key-sentence").count() == 0, "one line is one sentence: no sentence picker"
        assert_canvases_show_text(page, labels, f"sentence {n}")
        wait_for_tokens(page, "pg_cell_row", "x", labels)
        assert_nothing_injected(page, f"Playground, sentence {n}: {text!r}")
        save_screenshot(page, f"hostile-playground-{n}")

    # The cell breakdown names the clicked query and key in Markdown: shown literally, in bold, nothing more.
    labels = labels_of(MARKDOWN)
    set_text(page, MARKDOWN)
    cv.wait_for_labels(page, "one_head_chart", "y", labels)
    i, j = labels.index("__init__"), labels.index("[")
    cv.pick_cell(page, i, j, labels[i], labels[j])
    q, k = labels[i], labels[j]
    summary = markdown_text(page, "): score")  # the summary under the enlarged head (its title has no score)
    assert f"query {q} (token {i}) → key {k} (token {j})" in summary, summary  # 0-based, as the pickers
    title = markdown_text(page, "How this cell is made")
    assert f"query {q} (token {i}) → key {k} (token {j})" in title, title
    strong = page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer']").filter(
        has_text="How this cell is made").first.locator("strong").all_text_contents()
    assert strong[1:] == [q, k], strong  # the tokens are the bold parts, whole: no emphasis made out of them
    assert chart_title(page, "pg_cell_row") == en("cb_row_title", row=i, q=q)
    assert_nothing_injected(page, "Playground cell breakdown")

    # The link box: the address as text (no element inside it), and the copied link carries the text as typed.
    link = copy_share_link(page)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).get("text") == [MARKDOWN], link
    wait_for_link_box(page, link)
    assert_nothing_injected(page, "Playground link box")

    # The outputs, the closer look beside the enlarged head: each head's output and the module's, tokens as text.
    page.locator(".st-key-look_shown button").filter(has_text=en("pg_look_outputs")).click()
    wait_app_idle(page, rerun=True)
    for n, text in enumerate((MARKDOWN, HTML)):
        if n:
            set_text(page, text)
        for key in ("head_outputs", "output"):
            wait_for_tokens(page, key, "y", labels_of(text))
        assert_nothing_injected(page, f"Playground outputs: {text!r}")


def test_step_by_step_and_heads_show_hostile_tokens_as_plain_text(page, server):
    labels = labels_of(MIXED)
    goto(page, f"{server.url}/explain?" + urllib.parse.urlencode(
        {"text": MIXED, "ex_show_embed": "true", "ex_show_qk": "true", "ex_show_cell": "true"}))  # folded: opened
    # the steps' matrices are drawn on canvases in the page (#27.4): their token names as drawn with fillText
    for key in ("ex_qk", "ex_cell_chart", "ex_weights"):
        cv.wait_for_labels(page, key, "y", labels)
    for key in ("ex_qk", "ex_cell_chart"):
        cv.wait_for_labels(page, key, "x", labels)
    # step 7's keys, beside its wider colour bar, may be thinned (every n-th named): each one drawn is right
    keys = sorted((d["i"], d["text"]) for d in cv.labels(page, "ex_weights", "x"))
    assert keys and all(labels[i] == text for i, text in keys), keys
    wait_for_tokens(page, "ex_bar", "x", labels)
    cv.wait_for_labels(page, "ex_x", "y", labels)
    for key in ("ex_qk", "ex_cell_chart", "ex_weights", "ex_x"):
        assert not cv.foreign_elements(page, key), (key, cv.foreign_elements(page, key))
    assert chart_title(page, "ex_bar") == en("ex_bar_chart_title", q=labels[0], head=0)
    i, j = labels.index("__init__"), labels.index("<")
    cv.click_cell(page, "ex_cell_chart", 0, i, j)
    wait_app_idle(page, rerun=True)
    cv.poll(page, lambda: cv.picker_value(page, "ex_cell_query") == f"{i}: {labels[i]}",
            lambda: f"the query picker shows {cv.picker_value(page, 'ex_cell_query')!r}")
    title = markdown_text(page, "How this cell is made")
    assert f"query {labels[i]} (token {i}) → key {labels[j]} (token {j})" in title, title
    assert chart_title(page, "ex_cell_row") == en("cb_row_title", row=i, q=labels[i])
    assert_nothing_injected(page, "Step by step")
    save_screenshot(page, "hostile-explain")

    click_nav(page, "heads")  # the sentence stays: it is a shared control
    assert page.locator(".st-key-text textarea").input_value() == MIXED
    wait_for_tokens(page, "heads_entropy_chart", "x", labels)
    open_heads_section(page, "ablate")  # only the open section is drawn
    for key in ("heads_change_chart", "heads_results_chart"):
        wait_for_tokens(page, key, "x", labels)
    assert_nothing_injected(page, "Heads: switch off")
    open_heads_section(page, "compare")
    wait_for_tokens(page, "heads_pair_chart", "y", labels)
    assert_nothing_injected(page, "Heads: compare")
    open_heads_section(page, "qk")
    # The q/k picture labels its points with the tokens (a scatter's text, not ticks).
    points = [s.replace(ZWSP, "") for s in page.locator(".st-key-heads_qk_chart .textpoint text").all_text_contents()]
    assert points and set(points) <= set(labels), points
    assert_nothing_injected(page, "Heads")


def test_notes_in_the_sidebar_and_on_other_pages_show_input_as_plain_text(page, server):
    """Text that reaches a note rather than a chart: the preview of the sentence shown (several lines), a link
    parameter that could not be used, an unknown link parameter, the Masks page's fully blocked row and the bug
    zoo's token caption. Markdown and links in them must stay text."""
    lines = "__init__ **b** [c](https://evil.example) `d`\nsecond line"
    bad_d_model = "[a](https://evil.example/x)"
    unknown = "[k](https://evil.example)"
    params = {"text": lines, "d_model": bad_d_model, "num_heads": "**2**", unknown: "1"}
    goto(page, f"{server.url}/masks?" + urllib.parse.urlencode(params))
    notes = sidebar_texts(page)
    first = tokenize(lines.splitlines()[0]).tokens
    assert safe_label(" ".join(first), max_chars=28) in notes, notes  # the preview of sentence 0, as text
    assert bad_d_model in notes and "**2**" in notes, notes  # the refused values, quoted as given
    assert unknown in notes, notes
    assert_nothing_injected(page, "sidebar notes")
    # Masks: "Every key of query 0 (__init__) is blocked": the token literally, not "init" in bold.
    explain = markdown_text(page, "is blocked")
    assert "0 (__init__)" in explain, explain
    assert_nothing_injected(page, "Masks")
    save_screenshot(page, "hostile-masks")

    # The bug zoo's "as written" bug names the chosen token (query 0) in its caption.
    goto(page, f"{server.url}/bugs?" + urllib.parse.urlencode({"text": lines, "bz_bug": "seed_two_as_written"}))
    caption = " ".join(page.locator("[data-testid='stMain'] [data-testid='stCaptionContainer']").all_inner_texts())
    assert "“__init__”" in caption, caption
    assert_nothing_injected(page, "Bug zoo")

