//! The explorer end to end: finds the three incidents, shrinks findings that `run`
//! reproduces, never faults the guarded client, and gives the same bytes with any
//! `--jobs` and any sharding.

use std::path::{Path, PathBuf};
use std::process::Command;

fn faultline(args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_faultline"));
    command.args(args);
    outcome(command)
}

/// Runs `command` to the end: its exit code (-1 when a signal ended it), stdout, stderr.
fn outcome(mut command: Command) -> (i32, String, String) {
    let out = command.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("faultline-explore-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `faultline explore ARGS --out DIR` with a fresh temporary DIR named by `name`;
/// returns the exit code, stdout, stderr and DIR.
fn explore(name: &str, args: &[&str]) -> (i32, String, String, PathBuf) {
    let out = tmp(name);
    let (code, stdout, stderr) =
        faultline(&[&["explore"], args, &["--out", out.to_str().unwrap()]].concat());
    (code, stdout, stderr, out)
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .map(|(name, bytes)| {
            // Paths to shrunk files name the output directory; compare them without it.
            let text = String::from_utf8_lossy(&bytes).replace(&dir.display().to_string(), "OUT");
            (name, text.into_bytes())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_naive_client_has_the_three_seed_incidents_as_distinct_findings() {
    let (code, stdout, stderr, out) = explore(
        "naive",
        &[
            "--seeds", "20000", "--jobs", "2", "--client", "naive", "--format", "json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let has = |kind: &str, sig: &[(&str, &str)]| {
        findings.iter().any(|f| {
            f["kind"] == kind
                && sig.iter().all(|(k, v)| {
                    f["signature"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p[0] == *k && p[1] == *v)
                })
        })
    };
    assert!(
        has(
            "silent_gap",
            &[
                ("id_scheme", "PerStream"),
                ("unknown_cursor", "FreshStream")
            ]
        ),
        "Behavior A"
    );
    assert!(
        has(
            "cursor_reuse",
            &[
                ("id_scheme", "PerGeneration"),
                ("restart_persistence", "SessionIdsOnly")
            ]
        ),
        "Behavior B"
    );
    assert!(
        has("zombie_session", &[("get_validates_session", "false")]),
        "the cascade"
    );
    // Behind fleets (half the seeds): replicas that keep their own sessions misroute the
    // naive client's session, and an event store shared by stream hands it a tenant's
    // events.
    assert!(
        has("misrouted_session", &[("session_store", "PerReplica")]),
        "misrouted sessions behind a fleet"
    );
    assert!(
        has("foreign_event", &[("event_store", "SharedByStream")]),
        "foreign events from a store shared by stream"
    );
    assert!(report["seeds_per_s"].as_f64().unwrap() > 0.0);
    // Every shrunk finding reproduces its verdict through `run` (exit 0: its expect holds),
    // and is small.
    for f in findings {
        let path = f["shrunk_path"].as_str().expect("shrunk");
        let (code, _, stderr) = faultline(&["run", path, "--format", "json"]);
        assert_eq!(code, 0, "{path}: {stderr}");
        assert!(f["shrunk_size"].as_u64().unwrap() <= f["original_size"].as_u64().unwrap());
    }
    assert!(out.join("map-naive.svg").exists() && out.join("map-naive.txt").exists());
}

#[test]
fn the_guarded_client_has_no_loss_and_exits_0() {
    // Over as many seeds as the naive client's findings, half of them behind fleets.
    let (code, stdout, stderr, _) = explore(
        "guarded",
        &[
            "--seeds", "20000", "--jobs", "2", "--client", "guarded", "--format", "json",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for loss in [
        "silent_gap",
        "cursor_reuse",
        "quarantine_violation",
        "foreign_event",
        "duplicate",
    ] {
        assert!(report["verdicts"].get(loss).is_none(), "{loss}: {report:#}");
    }
    assert!(
        report["verdicts"]["detected"].as_u64().unwrap() > 0,
        "faults were injected and caught"
    );
}

#[test]
fn a_lying_server_defeats_the_guarded_client_and_the_explorer_exits_1() {
    let (code, _, stderr, _) = explore(
        "dishonest",
        &[
            "--seeds",
            "3000",
            "--client",
            "guarded",
            "--dishonest-servers",
            "--no-shrink",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("declared safe, lost data"));
}

/// Runs `faultline explore --seeds SEEDS ARGS` as one process with `--jobs 1`, as one with
/// `--jobs 2`, and as `n` shard processes merged; all three must write the same files with
/// the same bytes: the shrunk findings, `explore-CLIENT.json` (counts, findings, map) and
/// the map's text and SVG.
fn assert_one_process_jobs_and_shards_agree(name: &str, seeds: &str, n: u64, args: &[&str]) {
    let (one, two, shards, merged) = (
        tmp(&format!("{name}-j1")),
        tmp(&format!("{name}-j2")),
        tmp(&format!("{name}-shards")),
        tmp(&format!("{name}-merged")),
    );
    for (dir, jobs) in [(&one, "1"), (&two, "2")] {
        let (code, _, e) = faultline(
            &[
                &["explore", "--seeds", seeds, "--jobs", jobs][..],
                args,
                &["--out", dir.to_str().unwrap()],
            ]
            .concat(),
        );
        assert_eq!(code, 0, "{e}");
    }
    let mut inputs = Vec::new();
    for k in 0..n {
        let shard = format!("{k}/{n}");
        let (code, _, e) = faultline(
            &[
                &["explore", "--seeds", seeds, "--shard", &shard][..],
                args,
                &["--out", shards.to_str().unwrap()],
            ]
            .concat(),
        );
        assert_eq!(code, 0, "{e}");
        inputs.push(
            shards
                .join(format!("explore-naive-shard-{k}-of-{n}.json"))
                .display()
                .to_string(),
        );
    }
    let mut merge = vec!["explore", "merge", "--out", merged.to_str().unwrap()];
    merge.extend(inputs.iter().map(String::as_str));
    let (code, _, e) = faultline(&merge);
    assert_eq!(code, 0, "{e}");

    let a = files(&one);
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    for file in ["explore-naive.json", "map-naive.txt", "map-naive.svg"] {
        assert!(names.contains(&file), "{name}: no {file} in {names:?}");
    }
    assert!(
        names.iter().any(|n| n.ends_with(".ron")),
        "{name}: findings were written: {names:?}"
    );
    // The counts, findings and map one by one (a failure names the part), then every byte.
    let merged_files = files(&merged);
    let json = |files: &[(String, Vec<u8>)]| -> serde_json::Value {
        let (_, bytes) = files
            .iter()
            .find(|(n, _)| n == "explore-naive.json")
            .expect("explore-naive.json");
        serde_json::from_slice(bytes).unwrap()
    };
    let (whole, sharded) = (json(&a), json(&merged_files));
    assert_eq!(
        whole["seeds_run"].as_u64(),
        Some(seeds.parse().unwrap()),
        "{name}: every seed ran once"
    );
    for part in ["seeds_run", "verdicts", "findings", "map", "fleet_map"] {
        assert_eq!(
            whole[part], sharded[part],
            "{name}: {part} of {n} shards merged differs from one process's"
        );
    }
    assert_eq!(a, files(&two), "{name}: --jobs 1 and --jobs 2 differ");
    assert_eq!(
        a, merged_files,
        "{name}: {n} shards merged differ from one run"
    );
}

#[test]
fn same_bytes_with_any_jobs_and_any_sharding() {
    assert_one_process_jobs_and_shards_agree("legacy", "1500", 3, &[]);
    // The other eras' seeds draw from streams of their own (a quarter each under `mixed`).
    assert_one_process_jobs_and_shards_agree("mixed", "600", 4, &["--era", "mixed"]);
    // Pinned shards record their pins, and the merge shrinks with them.
    assert_one_process_jobs_and_shards_agree(
        "pinned",
        "300",
        2,
        &["--knob", "id_scheme=PerStream"],
    );
}

#[test]
fn shards_pinned_differently_do_not_merge() {
    let dir = tmp("pins-differ");
    let mut inputs = Vec::new();
    for (k, pin) in [
        (0, "id_scheme=PerStream"),
        (1, "id_scheme=SessionMonotonic"),
    ] {
        let shard = format!("{k}/2");
        let (code, _, e) = faultline(&[
            "explore",
            "--seeds",
            "40",
            "--shard",
            &shard,
            "--knob",
            pin,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{e}");
        inputs.push(dir.join(format!("explore-naive-shard-{k}-of-2.json")));
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&inputs[0]).unwrap()).unwrap();
    assert_eq!(
        json["pins"],
        serde_json::json!([["id_scheme", "PerStream"]])
    );
    let merged = tmp("pins-differ-merged");
    let (code, _, e) = faultline(&[
        "explore",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        inputs[0].to_str().unwrap(),
        inputs[1].to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("--knob id_scheme=PerStream") && e.contains("--knob id_scheme=SessionMonotonic"),
        "{e}"
    );
}

#[test]
fn bad_arguments_exit_2_with_a_reason() {
    for (args, needle) in [
        (vec!["explore", "--seeds", "abc"], "--seeds"),
        (
            vec!["explore", "--seeds", "10", "--shard", "3/3"],
            "--shard",
        ),
        (
            vec!["explore", "--seeds", "10", "--knob", "id_scheme=Sideways"],
            "--knob id_scheme",
        ),
        (
            vec!["explore", "--seeds", "10", "--knob", "colour=red"],
            "unknown knob",
        ),
    ] {
        let (code, _, stderr) = faultline(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn a_pinned_knob_holds_for_every_seed() {
    let (code, stdout, e, _) = explore(
        "pin",
        &[
            "--seeds",
            "500",
            "--knob",
            "id_scheme=PerStream",
            "--no-shrink",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{e}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = report["map"].as_array().unwrap();
    let seeds_in = |r: usize| {
        rows[r]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["seeds"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(seeds_in(1), 500, "all seeds in the PerStream row");
    assert_eq!(seeds_in(0) + seeds_in(2), 0);
}

#[test]
fn zero_seeds_is_bad_input() {
    let out = tmp("zero");
    let (code, stdout, stderr) =
        faultline(&["explore", "--seeds", "0", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains("--seeds \"0\": zero seeds would explore nothing"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn an_unwritable_out_is_refused_before_any_seed_runs() {
    let (code, stdout, stderr) = faultline(&[
        "explore",
        "--seeds",
        "100000000",
        "--out",
        "/proc/faultline-cannot-write-here",
    ]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains("--out /proc/faultline-cannot-write-here"),
        "{stderr}"
    );
    // Refused up front: no seed ran (a hundred million would not have finished).
    assert!(!stderr.contains("seeds/s"), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
}

#[test]
fn shards_sharing_one_out_keep_their_own_maps() {
    let out = tmp("shared-out");
    for k in 0..2 {
        let (code, _, stderr) = faultline(&[
            "explore",
            "--seeds",
            "200",
            "--shard",
            &format!("{k}/2"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
    }
    for k in 0..2 {
        for file in [
            format!("explore-naive-shard-{k}-of-2.json"),
            format!("map-naive-shard-{k}-of-2.txt"),
            format!("map-naive-shard-{k}-of-2.svg"),
        ] {
            assert!(out.join(&file).exists(), "{file}");
        }
    }
    assert!(
        !out.join("map-naive.svg").exists(),
        "no shard writes the unsharded map"
    );
}

#[test]
fn json_names_the_client_as_run_does_and_findings_name_their_knobs() {
    let (code, stdout, stderr, out) = explore("names", &["--seeds", "300", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["client"], "naive");
    let saved = std::fs::read_to_string(out.join("explore-naive.json")).unwrap();
    assert!(saved.contains("\"client\": \"naive\""), "{saved}");
    let findings = report["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for f in findings {
        let path = f["shrunk_path"].as_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        // The file name spells each knob of the signature with its value.
        for pair in f["signature"].as_array().unwrap() {
            let (knob, value) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            let spelled = format!("_{knob}_{}", value.to_ascii_lowercase());
            assert!(path.contains(&spelled), "{path} lacks {spelled}");
        }
        // The comment says where the file is, not "<this file>".
        assert!(
            text.contains(&format!(
                "// Reproduce: faultline run {path} --client naive"
            )),
            "{text}"
        );
        let witnesses = f["witnesses"].as_u64().unwrap();
        if witnesses == 1 {
            assert!(text.contains("(1 witness)"), "{text}");
        } else {
            assert!(text.contains(&format!("({witnesses} witnesses)")), "{text}");
        }
    }
    // Older results, with the client spelled "Naive", still merge.
    let old = out.join("old.json");
    std::fs::write(
        &old,
        saved.replace("\"client\": \"naive\"", "\"client\": \"Naive\""),
    )
    .unwrap();
    let merged = tmp("names-merged");
    let (code, _, stderr) = faultline(&[
        "explore",
        "merge",
        old.to_str().unwrap(),
        "--no-shrink",
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
}

/// Verdict names that appeared in an `explore --format json` result.
fn verdicts_of(stdout: &str) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("json");
    json["verdicts"]
        .as_object()
        .expect("verdicts")
        .keys()
        .cloned()
        .collect()
}

/// Issue 14: the 2026-07-28 swarm shows `duplicate_effect`, `missed_change` and
/// `lost_task` for the naive client, and the guarded client misses no change and loses no
/// task.
#[test]
fn the_modern_era_finds_the_three_stateless_verdicts_for_the_naive_client_only() {
    let (code, stdout, stderr) = explore_modern("modern-naive", "naive", &["--seeds", "600"]);
    assert_eq!(code, 0, "{stderr}");
    let naive = verdicts_of(&stdout);
    for kind in ["duplicate_effect", "missed_change", "lost_task"] {
        assert!(naive.iter().any(|k| k == kind), "{kind} not in {naive:?}");
    }
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["era"], "modern");

    let (_, stdout, stderr) = explore_modern("modern-guarded", "guarded", &["--seeds", "600"]);
    let guarded = verdicts_of(&stdout);
    for kind in ["missed_change", "lost_task"] {
        assert!(
            !guarded.iter().any(|k| k == kind),
            "{kind} in {guarded:?}: {stderr}"
        );
    }
}

/// `--era legacy` is the default: the same bytes as without the flag, and no `era` field.
#[test]
fn era_legacy_is_the_default_and_changes_no_byte() {
    let (a, b) = (tmp("era-default"), tmp("era-legacy"));
    let common = ["explore", "--seeds", "50", "--no-shrink", "--out"];
    let (code, _, stderr) = faultline(&[&common[..], &[a.to_str().unwrap()]].concat());
    assert!(code == 0 || code == 1, "{stderr}");
    let (code, _, stderr) =
        faultline(&[&common[..], &[b.to_str().unwrap(), "--era", "legacy"]].concat());
    assert!(code == 0 || code == 1, "{stderr}");
    assert_eq!(files(&a), files(&b));
    let json = std::fs::read_to_string(a.join("explore-naive.json")).unwrap();
    assert!(!json.contains("\"era\""), "{json}");
    let (code, _, stderr) = faultline(&["explore", "--era", "future", "--seeds", "5"]);
    assert_eq!(code, 2, "{stderr}");
}

/// Shards of a modern exploration merge; a modern and a legacy result do not.
#[test]
fn modern_results_merge_with_modern_results_only() {
    let out = tmp("era-merge");
    for (era, shard) in [("modern", "0/2"), ("modern", "1/2"), ("legacy", "0/2")] {
        let dir = out.join(era);
        let (code, _, stderr) = faultline(&[
            "explore",
            "--era",
            era,
            "--seeds",
            "40",
            "--shard",
            shard,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(code == 0 || code == 1, "{stderr}");
    }
    let shard = |era: &str, k: u32| {
        out.join(era)
            .join(format!("explore-naive-shard-{k}-of-2.json"))
            .display()
            .to_string()
    };
    let merged = out.join("merged");
    let (code, _, stderr) = faultline(&[
        "explore",
        "merge",
        &shard("modern", 0),
        &shard("modern", 1),
        "--no-shrink",
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(code == 0 || code == 1, "{stderr}");
    let (code, _, stderr) = faultline(&[
        "explore",
        "merge",
        &shard("modern", 0),
        &shard("legacy", 0),
        "--no-shrink",
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("era"), "{stderr}");
}

/// The `findings` of an `explore --format json` result as (kind, signature) pairs.
fn findings_of(stdout: &str) -> Vec<(String, Vec<(String, String)>)> {
    let json: serde_json::Value = serde_json::from_str(stdout).expect("json");
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let sig = f["signature"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
                .collect();
            (f["kind"].as_str().unwrap().to_string(), sig)
        })
        .collect()
}

/// `explore --era modern --client CLIENT --no-shrink --format json EXTRA`.
fn explore_modern(name: &str, client: &str, extra: &[&str]) -> (i32, String, String) {
    let common = [
        "--era",
        "modern",
        "--client",
        client,
        "--jobs",
        "2",
        "--no-shrink",
        "--format",
        "json",
    ];
    let (code, stdout, stderr, _) = explore(name, &[&common[..], extra].concat());
    (code, stdout, stderr)
}

/// Issue 14: over 20,000 modern seeds the guarded client has no loss at all, so the
/// explorer exits 0. (A task store that runs an interrupted task again after a restart
/// placed orders twice on 18 of them, which no client can prevent: such servers are drawn
/// only with `--dishonest-servers`, below.)
#[test]
fn the_guarded_client_has_no_modern_loss_and_exits_0() {
    let (code, stdout, stderr) =
        explore_modern("modern-guarded-20000", "guarded", &["--seeds", "20000"]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(findings_of(&stdout).is_empty(), "{json:#}");
    assert!(json["verdicts"]["detected"].as_u64().unwrap() > 0);
}

/// With dishonest servers allowed, a task store that re-runs an interrupted task places
/// an order twice for either client; the finding names `task_persistence`, not
/// `on_stream_cut`, and the naive client's own re-issues keep their `on_stream_cut`.
#[test]
fn a_task_store_that_re_runs_is_a_dishonest_server_named_by_task_persistence() {
    let rerun = (
        "duplicate_effect".to_string(),
        vec![("task_persistence".to_string(), "Everything".to_string())],
    );
    let (code, stdout, stderr) = explore_modern(
        "modern-guarded-dishonest",
        "guarded",
        &["--seeds", "2000", "--dishonest-servers"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("declared safe, lost data"), "{stderr}");
    assert_eq!(findings_of(&stdout), vec![rerun.clone()]);

    let (code, stdout, stderr) = explore_modern(
        "modern-naive-dishonest",
        "naive",
        &["--seeds", "2000", "--dishonest-servers"],
    );
    assert_eq!(code, 0, "{stderr}");
    let naive = findings_of(&stdout);
    assert!(naive.contains(&rerun), "{naive:?}");
    assert!(
        naive
            .iter()
            .any(|(k, sig)| k == "duplicate_effect" && sig[0].0 == "on_stream_cut"),
        "{naive:?}"
    );

    // The honest swarm draws no such server: the naive client's duplicates are its own.
    let (code, stdout, stderr) =
        explore_modern("modern-naive-honest", "naive", &["--seeds", "2000"]);
    assert_eq!(code, 0, "{stderr}");
    let naive = findings_of(&stdout);
    for (kind, sig) in &naive {
        if kind == "duplicate_effect" {
            assert_eq!(sig.len(), 1);
            assert_eq!(sig[0].0, "on_stream_cut", "{naive:?}");
        }
        if kind == "lost_task" {
            assert_ne!(sig[0].1, "Everything", "{naive:?}");
        }
    }
    for kind in ["duplicate_effect", "missed_change", "lost_task"] {
        assert!(naive.iter().any(|(k, _)| k == kind), "{kind}: {naive:?}");
    }
}

/// `explore --era migration --client CLIENT --jobs 2 --format json EXTRA` (shrinking unless
/// EXTRA says `--no-shrink`); returns the exit code, stdout, stderr and the output dir.
fn explore_migration(name: &str, client: &str, extra: &[&str]) -> (i32, String, String, PathBuf) {
    let common = [
        "--era",
        "migration",
        "--client",
        client,
        "--jobs",
        "2",
        "--format",
        "json",
    ];
    explore(name, &[&common[..], extra].concat())
}

/// Issue 14: the migration era draws the era knobs, the 2025 list users and `RollEra`.
/// The naive client shows `era_mismatch` (a misread probe, an era cached across a deploy,
/// a strict gateway in front of a sessionless server) and `missed_change` (through a 2025
/// GET stream that carries nothing, as nutrition-mcp's), each shrunk to a lesson `run`
/// reproduces; the guarded client shows neither, nor any loss, and the explorer exits 0.
#[test]
fn the_migration_era_finds_era_mismatch_and_missed_change_for_the_naive_client_only() {
    let (code, stdout, stderr, _) =
        explore_migration("migration-naive", "naive", &["--seeds", "2000"]);
    assert_eq!(code, 0, "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["era"], "migration");
    let naive = findings_of(&stdout);
    let has = |kind: &str, knob: &str, value: &str| {
        naive
            .iter()
            .any(|(k, sig)| k == kind && sig.iter().any(|(n, v)| n == knob && v == value))
    };
    assert!(
        has("era_mismatch", "legacy_probe_answer", "Rpc400(-32000)"),
        "rust-sdk#1040: {naive:?}"
    );
    assert!(
        has("era_mismatch", "rolled_to", "LegacyOnly"),
        "a deploy: {naive:?}"
    );
    assert!(
        has("era_mismatch", "era", "DualStatelessLegacy"),
        "a strict gateway: {naive:?}"
    );
    assert!(
        has("missed_change", "legacy_get", "ServeStream"),
        "nutrition-mcp#31: {naive:?}"
    );
    for f in json["findings"].as_array().unwrap() {
        let path = f["shrunk_path"].as_str().expect("shrunk");
        let (code, _, stderr) = faultline(&["run", path, "--client", "naive"]);
        assert_eq!(code, 0, "{path}: {stderr}");
    }

    let (code, stdout, stderr, _) = explore_migration(
        "migration-guarded",
        "guarded",
        &["--seeds", "2000", "--no-shrink"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(findings_of(&stdout).is_empty(), "{stdout}");
    let guarded = verdicts_of(&stdout);
    // `untested`: seeds with a drawn fault that met nothing of the client's (a drop
    // while no stream was open), never a finding.
    assert_eq!(guarded, ["clean", "detected", "untested"], "{stdout}");
}

/// A 2025-only server whose answer to a 2026-07-28 probe carries a 2026-07-28 error code
/// tells a client that reads the probe by the spec's rule that it speaks 2026-07-28: no
/// client can tell, so only `--dishonest-servers` draws it, and it is the guarded client's
/// only `era_mismatch` there.
#[test]
fn a_probe_answer_claiming_the_new_era_is_a_dishonest_server() {
    let (code, stdout, stderr, _) = explore_migration(
        "migration-guarded-dishonest",
        "guarded",
        &["--seeds", "2000", "--no-shrink", "--dishonest-servers"],
    );
    assert_eq!(code, 0, "era_mismatch is no loss: {stderr}");
    let found = findings_of(&stdout);
    assert!(!found.is_empty());
    for (kind, sig) in &found {
        assert_eq!(kind, "era_mismatch");
        let answer = &sig
            .iter()
            .find(|(n, _)| n == "legacy_probe_answer")
            .unwrap()
            .1;
        assert!(
            ["Rpc400(-32020)", "Rpc400(-32021)", "Rpc400(-32022)"].contains(&answer.as_str()),
            "{found:?}"
        );
    }
}

/// `tools/bench-compare.sh OLD NEW SEEDS ROUNDS`: a round per pair of runs, the ratio of
/// their seed-loop rates, the median; exit 0 when each pair wrote the same bytes, 1 when
/// a pair did not (here an "old" binary that explores with the guarded client, so writes
/// other findings), 2 on bad arguments.
#[test]
fn bench_compare_prints_a_ratio_per_round_and_fails_on_different_findings() {
    let bin = env!("CARGO_BIN_EXE_faultline");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/bench-compare.sh");
    let compare = |old: &str, extra: &[&str]| {
        let mut command = Command::new("bash");
        command.arg(&script).args([old, bin]).args(extra);
        outcome(command)
    };
    let (code, stdout, stderr) = compare(bin, &["300", "2"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let rounds: Vec<&str> = stdout.lines().filter(|l| l.ends_with(" same")).collect();
    assert_eq!(rounds.len(), 2, "{stdout}");
    for round in rounds {
        let ratio: f64 = round.split_whitespace().nth(3).unwrap().parse().unwrap();
        assert!(ratio > 0.0, "{round}");
    }
    assert!(
        stdout.contains("median ratio new/old: ") && stdout.contains("over 2 rounds of 300 seeds"),
        "{stdout}"
    );

    let dir = tmp("bench-compare-other");
    std::fs::create_dir_all(&dir).unwrap();
    let other = dir.join("faultline-guarded");
    std::fs::write(
        &other,
        format!("#!/bin/sh\nexec '{bin}' \"$@\" --client guarded\n"),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["+x", other.to_str().unwrap()])
        .status()
        .unwrap();
    let (code, stdout, stderr) = compare(other.to_str().unwrap(), &["300", "1"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("DIFFER") && stderr.contains("FAIL"),
        "{stdout}{stderr}"
    );

    let (code, _, stderr) = compare(bin, &["many"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("usage"), "{stderr}");
}
