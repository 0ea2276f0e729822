"""bench/timeline_browser.py names each websocket frame of a run by what it carries (a diagnosis tool; its timings
are never asserted): the decoding is checked here on messages built the way Streamlit sends them."""
from __future__ import annotations

import base64
import importlib.util
import sys
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    sys.path[:0] = [str(ROOT / "bench")]
    try:
        spec = importlib.util.spec_from_file_location("timeline_browser", ROOT / "bench" / "timeline_browser.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "bench"))


def _frame(msg: ForwardMsg) -> dict:
    return {"opcode": 2, "payloadData": base64.b64encode(msg.SerializeToString()).decode()}


def test_a_delta_is_named_by_its_element_and_path():
    msg = ForwardMsg()
    msg.delta.new_element.markdown.body = "hello"
    msg.metadata.delta_path[:] = [0, 14, 2]
    what, size = _tool().describe(_frame(msg))
    assert what == "new_element:markdown @0,14,2"
    assert size == len(msg.SerializeToString())


def test_a_block_and_a_run_message_are_named_too():
    tool = _tool()
    block = ForwardMsg()
    block.delta.add_block.expandable.label = "more"
    block.metadata.delta_path[:] = [1, 7]
    assert tool.describe(_frame(block))[0] == "add_block:expandable @1,7"
    done = ForwardMsg()
    done.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    assert tool.describe(_frame(done))[0] == "script_finished"


def test_a_frame_that_is_not_a_message_says_so():
    assert _tool().describe({"opcode": 2, "payloadData": base64.b64encode(b"\xff\xff\xff").decode()})[0] == "?"
