"""render.py draws the report card: these tests feed it made-up grade runs.

    python3 -m unittest tests/report-card/test_render.py
"""

import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402


def grade_json(kinds_by_scenario, sdk="lib 1.2.3"):
    return {
        "command": "x",
        "scenarios": [
            {
                "scenario": s,
                "client_report": {"sdk": sdk, "progress": [], "result": None, "error": None},
                "client_stderr": "",
                "verdicts": [{"kind": k, "why": f"{s} went {k} | badly"} for k in kinds],
            }
            for s, kinds in kinds_by_scenario.items()
        ],
    }


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.lines = []

    def add(self, rid, era, kinds, sdk="lib 1.2.3", exit_code=1, wall=12, command="node client.mjs"):
        with open(os.path.join(self.out, f"{rid}.{era}.grade.json"), "w") as f:
            json.dump(grade_json(kinds, sdk), f)
        with open(os.path.join(self.out, f"{rid}.{era}.exit"), "w") as f:
            f.write(f"{exit_code}\n")
        with open(os.path.join(self.out, f"{rid}.{era}.wall_s"), "w") as f:
            f.write(f"{wall}\n")
        self.lines.append("\t".join([rid, era, rid.upper(), "its default era", command]))

    def render(self):
        with open(os.path.join(self.out, "runs.tsv"), "w") as f:
            f.write("\n".join(self.lines) + "\n")
        with open(os.path.join(self.out, "meta.json"), "w") as f:
            json.dump({"date": "2026-12-05", "faultline": "faultline 0.1.0"}, f)
        md, page = os.path.join(self.out, "card.md"), os.path.join(self.out, "card.html")
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(render.main(["render.py", self.out, md, page]), 0)
        with open(md) as f, open(page) as g:
            return f.read(), g.read()

    def test_each_scenario_counts_once_by_its_worst_verdict(self):
        self.assertEqual(render.category(["clean"]), "clean")
        self.assertEqual(render.category(["silent_gap", "hung"]), "lost")
        self.assertEqual(render.category(["retry_amplification", "hung"]), "harm")
        self.assertEqual(render.category(["surfaced_loss", "retry_amplification"]), "loud")
        self.assertEqual(render.category(["crashed"]), "none")
        self.assertEqual(render.category(["not_applicable"]), "na")
        self.assertEqual(render.category(["out_of_order"]), "lost")

    def test_one_table_per_era_one_column_per_client_one_row_per_scenario(self):
        self.add("ts", "legacy", {"baseline": ["clean"], "behavior_b": ["silent_gap", "cursor_reuse"]}, sdk="sdk 1.32.2")
        self.add("rmcp", "legacy", {"baseline": ["out_of_order"], "behavior_b": ["silent_gap"]}, sdk="rmcp 3.11.0")
        self.add("ai", "modern", {"reissue": ["crashed"]}, sdk="@ai-sdk/mcp 2.0.99", command="node ai.mjs")
        md, _ = self.render()
        self.assertIn("## MCP 2025-11-25", md)
        self.assertIn("## MCP 2026-07-28", md)
        self.assertIn("| scenario | TS | RMCP |", md)
        self.assertIn("| baseline | clean | [out_of_order](#legacy-rmcp-baseline) |", md)
        self.assertIn("| scenario | AI |", md)
        # The versions, the date, the summary counts.
        self.assertIn("sdk 1.32.2", md)
        self.assertIn("@ai-sdk/mcp 2.0.99", md)
        self.assertIn("2026-12-05", md)
        self.assertIn("| RMCP | rmcp 3.11.0 | MCP 2025-11-25 | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 1 | 12 s |", md)
        self.assertIn("| TS | sdk 1.32.2 | MCP 2025-11-25 | 2 | 1 | 0 | 0 | 0 | 0 | 1 | 1 | 12 s |", md)

    def test_every_cell_that_is_not_clean_says_what_happened_and_how_to_replay_it(self):
        self.add("rmcp", "legacy", {"rmcp_window_gap": ["silent_gap", "out_of_order"], "baseline": ["clean"]},
                 command="examples/clients/rust-rmcp/target/release/faultline-client-rmcp")
        self.add("ai", "modern", {"tasks_lost_on_restart": ["crashed"]}, command="node ai.mjs")
        md, page = self.render()
        targets = set(re.findall(r"\]\(#([^)]+)\)", md))
        anchors = set(re.findall(r'<a id="([^"]+)"></a>', md))
        self.assertEqual(targets, anchors)
        self.assertEqual(len(anchors), 2)
        self.assertIn(
            'Replay: `faultline grade --scenario rmcp_window_gap --command '
            '"examples/clients/rust-rmcp/target/release/faultline-client-rmcp"`', md)
        self.assertIn('`faultline grade --era modern --scenario tasks_lost_on_restart --command "node ai.mjs"`', md)
        self.assertIn("silent_gap: rmcp_window_gap went silent_gap \\| badly", md)
        self.assertNotIn("baseline went", md)
        # The page: the same explanation in the cell, escaped.
        self.assertIn("rmcp_window_gap went silent_gap | badly", page)
        self.assertIn("faultline grade --era modern --scenario tasks_lost_on_restart --command &quot;node ai.mjs&quot;", page)

    def test_a_clean_on_compressed_time_says_how_long_the_call_waited_in_how_little_wall_time(self):
        self.add("ts", "legacy", {"baseline": ["clean"], "drop_close": ["clean"]})
        path = os.path.join(self.out, "ts.legacy.grade.json")
        with open(path) as f:
            graded = json.load(f)
        graded["scenarios"][0]["compressed_wait"] = {"call_waited_ms": 1_200_000, "wall_ms": 430}
        graded["scenarios"][1]["compressed_wait"] = None
        with open(path, "w") as f:
            json.dump(graded, f)
        md, page = self.render()
        self.assertIn("| baseline | clean (waited 20m in 0.4 s) |", md)
        self.assertIn("| drop_close | clean |", md)
        self.assertIn("`faultline grade --time-scale 1`", md)
        self.assertIn('<td class="clean">clean (waited 20m in 0.4 s)</td>', page)
        # Counted as clean all the same.
        self.assertIn("| TS | lib 1.2.3 | MCP 2025-11-25 | 2 | 0 | 0 | 0 | 0 | 0 | 2 | 1 | 12 s |", md)
        self.assertEqual(render.span(270_000), "4m30s")
        self.assertEqual(render.span(1_500), "1.5s")
        self.assertEqual(render.span(3_600_000), "1h")

    def test_the_page_is_self_contained(self):
        self.add("ts", "legacy", {"baseline": ["clean"], "drop_twice": ["duplicate"]})
        _, page = self.render()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertIn("<style>", page)
        for external in ("<link", "<script", "src=", "http://", "https://", "@import", "url("):
            self.assertNotIn(external, page)

    def test_a_run_without_json_still_renders_its_column(self):
        self.add("ts", "legacy", {"baseline": ["clean"]})
        with open(os.path.join(self.out, "ts.legacy.grade.json"), "w") as f:
            f.write("grade: error\n")
        md, _ = self.render()
        self.assertIn("unknown (no report)", md)

    def test_a_crash_is_explained_by_what_its_stderr_said(self):
        verdicts = [{"kind": "crashed", "why": "the client exited 13 without a report; stderr ends: ^"}]
        stderr = "Warning: Detected unsettled top-level await at file:///c.mjs:67\n    const result = await client.callTool(x)\n    ^\n\n"
        self.assertIn("its stderr: Warning: Detected unsettled top-level await", render.explanation(verdicts, stderr))
        # Paths are shown from the repository's root, not this machine's.
        stderr = f"Error: boom at file://{render.ROOT}/examples/clients/ai-sdk/client.mjs:3\n"
        self.assertIn("its stderr: Error: boom at examples/clients/ai-sdk/client.mjs:3", render.explanation(verdicts, stderr))

    def test_a_kind_that_came_twice_is_shown_once(self):
        self.add("lc", "legacy", {"replicas_round_robin": ["surfaced_loss", "misrouted_session", "misrouted_session"]})
        md, _ = self.render()
        self.assertIn("[surfaced_loss, misrouted_session](#legacy-lc-replicas-round-robin)", md)

    def test_the_readme_summary_is_rewritten_between_its_markers_only(self):
        self.add("rmcp", "legacy", {"baseline": ["clean"], "evicted_buffer": ["hung"], "gap": ["silent_gap"]}, sdk="rmcp 3.11.0")
        self.render()
        readme = os.path.join(self.out, "README.md")
        with open(readme, "w") as f:
            f.write(f"# x\n\nbefore\n{render.BEGIN}\nold table\n{render.END}\nafter\n")
        with contextlib.redirect_stdout(io.StringIO()):
            render.main(["render.py", self.out, os.path.join(self.out, "c.md"), os.path.join(self.out, "c.html"), readme])
        with open(readme) as f:
            text = f.read()
        self.assertNotIn("old table", text)
        self.assertTrue(text.startswith("# x\n\nbefore\n"))
        self.assertTrue(text.endswith(f"{render.END}\nafter\n"))
        self.assertIn("| rmcp 3.11.0 | 2025-11-25 | 1 | 1 | 0 | 0 | 0 | 1 of 3 |", text)
        self.assertIn("[the report card](docs/report-card.md)", text)
        with open(readme, "w") as f:
            f.write("no markers\n")
        with self.assertRaises(SystemExit):
            render.update_between_markers(readme, "x")

    def test_long_explanations_are_cut_to_one_line(self):
        text = render.explanation([{"kind": "hung", "why": "word " * 200}])
        self.assertLessEqual(len(text), render.MAX_WHY * 2)
        self.assertNotIn("\n", text)


if __name__ == "__main__":
    unittest.main()
