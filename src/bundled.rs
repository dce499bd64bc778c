//! The scenarios of `scenarios/`, `scenarios/field/` and `scenarios/grade/`, compiled into
//! the binary.
//!
//! An installed `faultline` runs from any directory, where `scenarios/behavior_a.ron` does
//! not exist; `faultline run behavior_a` must still work, and so must `bench`, which
//! measures these very incidents. A path that exists always wins over a bundled name, so a
//! local edit of a bundled scenario is the one that runs. A test checks that every `.ron`
//! file of those directories is bundled here with the same text, so the two cannot drift.

use std::path::Path;

use faultline_sim::{Scenario, ScenarioError};

/// A scenario file compiled into the binary.
pub struct Bundled {
    /// What to type: the file name without `.ron`.
    pub name: &'static str,
    /// Where it lives in the repository.
    pub path: &'static str,
    pub text: &'static str,
}

macro_rules! bundle {
    ($($dir:literal / $name:literal),* $(,)?) => {
        &[$(Bundled {
            name: $name,
            path: concat!($dir, "/", $name, ".ron"),
            text: include_str!(concat!("../", $dir, "/", $name, ".ron")),
        }),*]
    };
}

/// Every bundled scenario, the incidents first.
pub const BUNDLED: &[Bundled] = bundle![
    "scenarios" / "behavior_a",
    "scenarios" / "behavior_b",
    "scenarios" / "replay_404_cascade",
    "scenarios/field" / "rmcp_958_empty_200",
    "scenarios/field" / "rmcp_958_reconnect_forever",
    "scenarios/field" / "rmcp_hang_400_on_resume",
    "scenarios/field" / "rmcp_hang_404_on_resume",
    "scenarios/field" / "rmcp_window_gap",
    "scenarios/field" / "replicas_round_robin",
    "scenarios/field" / "replicas_sticky_session",
    "scenarios/field" / "reissue_duplicate_effect",
    "scenarios/field" / "sticky_cookie_dropped",
    "scenarios/field" / "replica_down",
    "scenarios/field" / "shared_store_cross_session",
    "scenarios/field" / "listen_missed_change",
    "scenarios/field" / "tasks_lost_on_restart",
    "scenarios/field" / "rolling_deploy",
    "scenarios/field" / "era_probe_fallback",
    "scenarios/field" / "stateless_strict_gateway",
    "scenarios/field" / "leftover_get_after_deploy",
    "scenarios/field" / "rolling_era_rollback",
    "scenarios/field" / "per_replica_bus_missed_change",
    "scenarios/field" / "idle_proxy_cuts_listen",
    "scenarios/field" / "idle_proxy_keepalive",
    "scenarios/field" / "affine_301_dead_session_400",
    "scenarios/field" / "agentnative_5547_idle_gap",
    "scenarios/field" / "cfagents_1923_restored_session",
    "scenarios/field" / "claudecode_60949_dead_session_cached",
    "scenarios/field" / "cowagent_3092_rmcp_idle",
    "scenarios/field" / "csharp_1713_get_reconnect_400",
    "scenarios/field" / "csharp_663_idle_74s",
    "scenarios/field" / "dbx_8499_idle_404_never_heals",
    "scenarios/field" / "executor_1345_dead_pipe",
    "scenarios/field" / "executor_1622_dead_get_forever",
    "scenarios/field" / "executor_818_idle_alarm",
    "scenarios/field" / "gitlabmcp_697_expired_session_429",
    "scenarios/field" / "grampsweb_52_continue_rmcp_300s",
    "scenarios/field" / "keryx_503_unknown_session_200",
    "scenarios/field" / "kotlinsdk_716_stale_get_409",
    "scenarios/field" / "langchain4j_3802_no_session_renewal",
    "scenarios/field" / "librechat_11868_get_404_ignored",
    "scenarios/field" / "lobster_1625_python_restart",
    "scenarios/field" / "mcphub_196_multiprocess_400",
    "scenarios/field" / "mcpplugin_105_cursor_get_400",
    "scenarios/field" / "mcpremote_106_gateway_ttl",
    "scenarios/field" / "neotoma_1923_unknown_session_503",
    "scenarios/field" / "nowledge_405_rmcp_idle_gaps",
    "scenarios/field" / "ollmcp_321_session_terminated",
    "scenarios/field" / "omniroute_5169_unknown_session_400",
    "scenarios/field" / "openclaw_112540_session_not_found",
    "scenarios/field" / "platformatic_164_constant_ids",
    "scenarios/field" / "punkpeye_mcpproxy_14_restart_400",
    "scenarios/field" / "pysdk_1004_restart_400",
    "scenarios/field" / "pysdk_1676_no_reinit",
    "scenarios/field" / "pysdk_2393_request_stream_loop",
    "scenarios/field" / "pysdk_3257_get_stream_loop",
    "scenarios/field" / "reasonix_4734_go_client_404",
    "scenarios/field" / "render_26_stale_get_400",
    "scenarios/field" / "rubymcp_168_no_cursor_on_get",
    "scenarios/field" / "rubysdk_504_retry_unbounded",
    "scenarios/field" / "rust_689_dead_session_401",
    "scenarios/field" / "rust_733_no_reinit",
    "scenarios/field" / "rust_791_priming_id_zero",
    "scenarios/field" / "sparfenyuk_mcpproxy_149_backend_restart",
    "scenarios/field" / "stakpak_627_total_timeout",
    "scenarios/field" / "tssdk_1708_stale_session_404",
    "scenarios/field" / "tssdk_2098_get_gives_up",
    "scenarios/field" / "tssdk_2499_cursor_forgotten",
    "scenarios/field" / "tssdk_943_get_stream_replays_nothing",
    "scenarios/field" / "zilla_2525_inactivity_60s",
    "scenarios/field" / "zilla_2525_post_200_invalid_request",
    "scenarios/grade" / "baseline",
    "scenarios/grade" / "drop_close",
    "scenarios/grade" / "drop_reset",
    "scenarios/grade" / "drop_twice",
    "scenarios/grade" / "restart_mid_call",
    "scenarios/grade" / "session_expiry_mid_call",
    "scenarios/grade" / "evicted_buffer",
    "scenarios/grade" / "call_cut_before_an_id",
];

/// The incidents `bench` measures by default.
pub const BENCH_DEFAULT: [&str; 3] = ["behavior_a", "behavior_b", "replay_404_cascade"];

/// The bundled scenario `arg` names: its name (`behavior_a`), its file name
/// (`behavior_a.ron`) or its path in the repository (`scenarios/behavior_a.ron`).
pub fn find(arg: &str) -> Option<&'static Bundled> {
    BUNDLED
        .iter()
        .find(|b| arg == b.name || arg == b.path || arg.strip_suffix(".ron") == Some(b.name))
}

impl Bundled {
    pub fn scenario(&self) -> Result<Scenario, ScenarioError> {
        Scenario::parse(self.text, self.path)
    }
}

/// Loads the scenario `arg` names: the file at that path if there is one, else the
/// bundled scenario of that name. `run`, `explain`, `render --scenario` and `bench` go
/// through here, and so do `serve --scenario` and `grade --scenario`.
pub fn load(arg: &Path) -> Result<Scenario, ScenarioError> {
    if arg.exists() {
        return Scenario::load(arg);
    }
    match arg.to_str().and_then(find) {
        Some(bundled) => bundled.scenario(),
        None => Scenario::load(arg).map_err(|mut e| {
            let names: Vec<&str> = BUNDLED.iter().map(|b| b.name).collect();
            e.message.push_str(&format!(
                "; nor is it a bundled scenario ({}; `faultline scenarios` lists them)",
                names.join(", ")
            ));
            e
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.ron` file of `scenarios/`, `scenarios/field/` and `scenarios/grade/` is
    /// bundled, with the text of the file, and every bundled scenario is such a file.
    #[test]
    fn the_bundle_is_exactly_the_scenario_directories() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut on_disk = Vec::new();
        for dir in ["scenarios", "scenarios/field", "scenarios/grade"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "ron") {
                    let name = path.file_name().unwrap().to_string_lossy().to_string();
                    on_disk.push((
                        format!("{dir}/{name}"),
                        std::fs::read_to_string(&path).unwrap(),
                    ));
                }
            }
        }
        on_disk.sort();
        let mut bundled: Vec<(String, String)> = BUNDLED
            .iter()
            .map(|b| (b.path.to_string(), b.text.to_string()))
            .collect();
        bundled.sort();
        let names = |v: &[(String, String)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&bundled),
            names(&on_disk),
            "src/bundled.rs lists other files than scenarios/ holds"
        );
        for ((path, bundled), (_, disk)) in bundled.iter().zip(&on_disk) {
            assert!(
                bundled == disk,
                "{path}: the bundled text differs from the file"
            );
        }
    }

    #[test]
    fn every_bundled_scenario_parses_and_is_found_by_each_spelling() {
        for b in BUNDLED {
            let s = b.scenario().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                s.name, b.name,
                "{}: the scenario's name is its file name",
                b.path
            );
            for spelling in [
                b.name.to_string(),
                format!("{}.ron", b.name),
                b.path.to_string(),
            ] {
                assert_eq!(find(&spelling).map(|f| f.path), Some(b.path));
            }
        }
        assert!(find("no_such_scenario").is_none());
    }
}
