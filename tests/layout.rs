//! The workspace's shape, as the "one engine, one clock" work left it: the live server
//! does not reach into the simulator, the product binary carries no load generator, the
//! teaching crate reads the simulator's typed trace, and the model's files stay small
//! enough to read one request lifecycle at a time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn manifest(crate_dir: &str) -> toml_lite::Manifest {
    let path = Path::new(ROOT).join(crate_dir).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    toml_lite::Manifest::parse(&text)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}")) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_model_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("crates/model/src"), &mut files);
    assert!(
        files.len() > 10,
        "the model's sources were found: {files:?}"
    );
    let long: Vec<(String, usize)> = files
        .iter()
        .map(|f| {
            let lines = std::fs::read_to_string(f)
                .expect("readable")
                .lines()
                .count();
            (f.strip_prefix(ROOT).unwrap().display().to_string(), lines)
        })
        .filter(|(_, lines)| *lines > 800)
        .collect();
    assert!(long.is_empty(), "split these by concern: {long:?}");
}

#[test]
fn the_live_server_does_not_depend_on_the_simulator() {
    let server = manifest("crates/server");
    assert!(server.depends_on("faultline-scenario"), "{server:?}");
    assert!(!server.depends_on("faultline-sim"), "{server:?}");
}

#[test]
fn the_product_binary_carries_no_load_generator() {
    let product = manifest(".");
    assert!(product.depends_on("faultline-server"), "{product:?}");
    for dep in ["hyper", "hyper-util", "libc", "hdrhistogram", "criterion"] {
        assert!(!product.depends_on(dep), "faultline depends on {dep}");
    }
    assert!(manifest("tools/loadgen").depends_on("hdrhistogram"));
}

#[test]
fn the_teaching_crate_has_no_trace_reader_of_its_own() {
    assert!(Path::new(ROOT).join("crates/teach/src").is_dir());
    assert!(
        !Path::new(ROOT)
            .join("crates/teach/src/trace_file.rs")
            .exists()
    );
    assert!(manifest("crates/teach").depends_on("faultline-sim"));
}

/// Just enough of a Cargo manifest to list dependency names: the keys of its
/// `[dependencies]` and `[dev-dependencies]` tables, their `[target.'cfg(..)'.*]` forms
/// (`name.workspace = true` names `name`) and `[dependencies.NAME]` headers.
mod toml_lite {
    #[derive(Debug)]
    pub struct Manifest {
        dependencies: Vec<String>,
    }

    impl Manifest {
        pub fn parse(text: &str) -> Self {
            let mut dependencies = Vec::new();
            let mut in_dependencies = false;
            for line in text.lines().map(str::trim) {
                if let Some(header) = line.strip_prefix('[') {
                    let header = header.trim_end_matches(']');
                    let table = header.rsplit_once("'.").map_or(header, |(_, t)| t);
                    in_dependencies = matches!(table, "dependencies" | "dev-dependencies");
                    if let Some(name) = table
                        .strip_prefix("dependencies.")
                        .or_else(|| table.strip_prefix("dev-dependencies."))
                    {
                        dependencies.push(name.to_string());
                    }
                } else if in_dependencies && let Some((key, _)) = line.split_once('=') {
                    let name = key.trim().split('.').next().unwrap_or_default();
                    dependencies.push(name.to_string());
                }
            }
            Manifest { dependencies }
        }

        pub fn depends_on(&self, name: &str) -> bool {
            self.dependencies.iter().any(|d| d == name)
        }
    }
}

/// Each package of `cargo tree`'s output with the feature sets it is built with (one for
/// the target, one for proc macros and build scripts, where they differ):
/// `"tokio v1.54.1" → {"bytes,fs,…"}`.
fn resolved_features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(ROOT)
        .args(["tree", "--offline", "--locked", "--prefix", "none"])
        .args(["-f", "{p}|{f}"])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut resolved: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // "tokio v1.54.1" (a path dependency adds its path, a proc macro says so).
        let name = package.split(" (").next().unwrap_or(package).trim();
        let features = features.trim_end_matches(" (*)").trim();
        resolved
            .entry(name.to_string())
            .or_default()
            .insert(features.to_string());
    }
    resolved
}

/// The README's test command, run after its main command, reuses what the main command
/// built: every crate both builds share is resolved with the same features (see
/// crates/workspace-hack/Cargo.toml). When a manifest change breaks that, the test names
/// the crates and the features to add to the workspace-hack crate.
#[test]
fn the_main_and_test_builds_resolve_shared_crates_alike() {
    let main = resolved_features(&["-p", "faultline", "-e", "normal,build"]);
    let test = resolved_features(&["--workspace", "-e", "normal,build,dev"]);
    assert!(
        main.len() > 50 && main.keys().any(|k| k.starts_with("tokio v")),
        "cargo tree listed the binary's dependencies: {main:?}"
    );
    let differ: Vec<String> = main
        .iter()
        .filter_map(|(package, features)| {
            let other = test.get(package)?;
            (other != features)
                .then(|| format!("{package}: binary {features:?}, test build {other:?}"))
        })
        .collect();
    assert!(
        differ.is_empty(),
        "the test build resolves these shared crates with other features than `cargo run --release` \
         (it would build them again); add the difference to crates/workspace-hack/Cargo.toml:\n{}",
        differ.join("\n")
    );
}

/// A crate whose integration tests are one binary (`tests/all.rs`, `autotests = false`)
/// builds only the files `all.rs` names: a test file added beside it and not named there
/// would never run.
#[test]
fn every_integration_test_file_is_in_its_crates_test_binary() {
    let mut checked = 0;
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(Path::new(ROOT).join("crates")).expect("crates/") {
        let tests = entry.expect("a directory entry").path().join("tests");
        let Ok(all) = std::fs::read_to_string(tests.join("all.rs")) else {
            continue;
        };
        // A file may be a test binary of its own (`[[test]] path = "tests/FILE"`).
        let manifest = std::fs::read_to_string(tests.with_file_name("Cargo.toml"))
            .expect("the crate's Cargo.toml");
        checked += 1;
        for file in std::fs::read_dir(&tests).expect("tests/") {
            let path = file.expect("a directory entry").path();
            let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let module = if path.is_dir() {
                path.join("mod.rs").exists().then_some(name)
            } else {
                (path.extension().is_some_and(|e| e == "rs") && name != "all").then_some(name)
            };
            let own_binary = format!("path = \"tests/{name}.rs\"");
            if let Some(module) = module
                && !all.lines().any(|l| l.trim() == format!("mod {module};"))
                && !manifest.contains(&own_binary)
            {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(
        checked >= 5,
        "the crates' tests/all.rs were found ({checked})"
    );
    assert!(
        missing.is_empty(),
        "test files no test binary builds (add `mod NAME;` to their crate's tests/all.rs): {missing:?}"
    );
}
