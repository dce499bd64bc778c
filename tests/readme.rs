//! The README and the docs keep their promises: the "Writing a scenario" template (in
//! docs/scenarios.md) holds its own `expect` block, and no document points at material
//! outside the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The first ```ron block after the "## Writing a scenario" heading of docs/scenarios.md.
fn template() -> String {
    let page = std::fs::read_to_string(root().join("docs/scenarios.md")).unwrap();
    let section = page
        .split("## Writing a scenario")
        .nth(1)
        .expect("docs/scenarios.md has a Writing a scenario section");
    let block = section
        .split("```ron\n")
        .nth(1)
        .expect("the section has a ron block");
    block.split("\n```").next().unwrap().to_string() + "\n"
}

#[test]
fn the_readme_template_holds_its_expect_block_for_both_clients() {
    let dir = std::env::temp_dir().join(format!("faultline-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("my_incident.ron");
    std::fs::write(&path, template()).unwrap();
    for client in ["naive", "guarded"] {
        let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
            .args(["run", path.to_str().unwrap(), "--client", client])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{client}: the docs/scenarios.md template fails its own expect block:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("expectation\n  holds"), "{stdout}");
    }
}

/// Every text file under `dir` (recursively) with one of `exts`.
fn texts(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            texts(&path, exts, out);
        } else if path
            .extension()
            .is_some_and(|e| exts.contains(&e.to_string_lossy().as_ref()))
        {
            out.push(path);
        }
    }
}

#[test]
fn documents_cite_nothing_outside_the_repository() {
    let mut files = vec![root().join("README.md")];
    for dir in ["docs", "scenarios", "src", "crates"] {
        texts(
            &root().join(dir),
            &["md", "ron", "rs", "sh", "svg", "txt"],
            &mut files,
        );
    }
    // Paths of private material the repository never shipped.
    let forbidden = ["shared/", "seeds/0", "reference/", "reference §"];
    let mut hits = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for word in forbidden {
                if line.contains(word) {
                    hits.push(format!("{}:{}: {word}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    assert!(
        hits.is_empty(),
        "citations of material not in the repository:\n{}",
        hits.join("\n")
    );
}
