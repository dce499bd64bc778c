//! The SDK-client presets against the real clients: `faultline grade --like ts-1` (the
//! naive modelled client with the TypeScript SDK client's habits) must give, scenario by
//! scenario of the default set, an outcome the real client was recorded giving
//! (`tests/interop/expectations.json`, which `tests/interop/run.sh` checks against the
//! real clients on every CI run), or the difference must be listed in
//! `tests/interop/preset_differences.json` with its reason.
//!
//! A listed difference is checked too. Most carry `with`: the habits that, set on top of
//! the preset, make it agree with the real client (a timer the harness's clock never lets
//! fire in wall time is the commonest reason); the test runs the preset with them and
//! insists on the real outcome, so the reason is a fact, not a guess. A listing that no
//! longer differs fails the test, so the list stays true.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use faultline_grade::grade_modelled;
use faultline_scenario::{ClientHabits, ClientModel, Scenario, SdkClient};
use serde_json::Value;

/// The real clients recorded in expectations.json and the preset that models each.
const CLIENTS: [(&str, SdkClient); 3] = [
    ("typescript", SdkClient::TypeScript1),
    ("python", SdkClient::Python2),
    ("rmcp", SdkClient::Rmcp311),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_json(relative: &str) -> Value {
    let path = root().join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{relative}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The bundled scenario named `name`.
fn bundled(name: &str) -> Scenario {
    for dir in ["scenarios", "scenarios/field", "scenarios/grade"] {
        let file = root().join(dir).join(format!("{name}.ron"));
        if file.exists() {
            return Scenario::load(&file).expect("a bundled scenario loads");
        }
    }
    panic!("no bundled scenario named {name}");
}

fn kinds_of(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .expect("a list of verdict kinds")
        .iter()
        .map(|k| k.as_str().expect("a verdict kind").to_string())
        .collect()
}

/// The verdict kinds of the preset `sdk`, with `with` (habits in scenario syntax, e.g.
/// `request_timeout: Never`) set on top of it, graded on `scenario`.
fn preset_kinds(scenario: &Scenario, sdk: SdkClient, with: &str) -> BTreeSet<String> {
    let mut scenario = scenario.clone();
    scenario.client.habits = habits(sdk, with);
    let grade = grade_modelled(&scenario, ClientModel::Naive, None).expect("fits the contract");
    grade
        .verdicts
        .iter()
        .map(|v| v.kind.name().to_string())
        .collect()
}

/// `(like: SDK, WITH)` read as a scenario's `client.habits`.
fn habits(sdk: SdkClient, with: &str) -> ClientHabits {
    let like = format!("{sdk:?}");
    let extra = if with.is_empty() {
        String::new()
    } else {
        format!(", {with}")
    };
    let text =
        format!(r#"Scenario(name: "x", summary: "x", client: (habits: (like: {like}{extra})))"#);
    Scenario::parse(&text, "preset_differences.json")
        .unwrap_or_else(|e| panic!("habits {with:?}: {e}"))
        .client
        .habits
}

/// An outcome the real client was recorded giving; rmcp's progress handed over out of
/// order in some runs (a task per notification) is matched with or without it, as
/// `tests/interop/check.py` does.
fn recorded(real: &Value, client: &str, got: &BTreeSet<String>) -> bool {
    real.as_array().expect("outcomes").iter().any(|outcome| {
        let mut kinds = kinds_of(&outcome["verdicts"]);
        if client == "rmcp" && !got.contains("out_of_order") {
            kinds.remove("out_of_order");
            if kinds.is_empty() {
                kinds.insert("clean".into());
            }
        }
        &kinds == got
    })
}

#[test]
fn every_sdk_preset_grades_as_its_real_client_or_the_difference_is_listed() {
    let expectations = read_json("tests/interop/expectations.json");
    let listed = read_json("tests/interop/preset_differences.json");
    let listed = listed["differences"]
        .as_array()
        .expect("differences")
        .clone();
    let mut used = vec![false; listed.len()];
    let mut unlisted = Vec::new();
    let mut wrong_reason = Vec::new();
    let mut compared = 0;
    for (client, sdk) in CLIENTS {
        let outcomes = expectations[client]
            .as_object()
            .expect("a client's scenarios");
        for (name, real) in outcomes {
            compared += 1;
            let scenario = bundled(name);
            let got = preset_kinds(&scenario, sdk, "");
            if recorded(real, client, &got) {
                continue;
            }
            let entry = listed.iter().position(|d| {
                d["client"] == client
                    && d["scenario"] == name.as_str()
                    && kinds_of(&d["preset"]) == got
            });
            let Some(i) = entry else {
                unlisted.push(format!(
                    "{client} / {name}: `faultline grade --like {} --scenario {name}` gives {got:?}; the real client was recorded giving {real}",
                    sdk.name()
                ));
                continue;
            };
            used[i] = true;
            let difference = &listed[i];
            assert!(
                difference["why"].as_str().is_some_and(|w| w.len() > 40),
                "{client} / {name}: a listed difference says why in a sentence"
            );
            if let Some(with) = difference["with"].as_str() {
                let agreed = preset_kinds(&scenario, sdk, with);
                if !recorded(real, client, &agreed) {
                    wrong_reason.push(format!(
                        "{client} / {name}: with `{with}` the preset gives {agreed:?}, still not the real client's {real}"
                    ));
                }
            }
        }
    }
    let stale: Vec<String> = listed
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(d, _)| format!("{} / {}", d["client"], d["scenario"]))
        .collect();
    assert!(compared >= 60, "compared only {compared} scenario runs");
    assert!(
        unlisted.is_empty() && wrong_reason.is_empty() && stale.is_empty(),
        "presets against the real clients (tests/interop/preset_differences.json):\n\
         differences not listed:\n  {}\nlisted reasons that do not hold:\n  {}\nlisted differences that no longer happen:\n  {}",
        unlisted.join("\n  "),
        wrong_reason.join("\n  "),
        stale.join("\n  ")
    );
}
