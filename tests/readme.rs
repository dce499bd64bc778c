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

/// README.md and every Markdown file under docs/.
fn markdown_docs() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    texts(&root().join("docs"), &["md"], &mut files);
    files.sort();
    files
}

/// A command line split into words the way a shell would: whitespace outside quotes
/// separates them, and a quoted word keeps its quotes (so `"tool --flag"`, an argument
/// of a faultline flag, is one word that does not start with `--`).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) => {
                word.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                word.push(c);
                quote = Some(c);
            }
            None if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            None => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The subcommand and the `--flags` of a documented command: a line that starts (after an
/// optional `$ ` prompt) with `faultline ` or `cargo run --release -- `. A `#` comment
/// after the command is not part of it; `--flag=value` names `--flag`; `--` alone is not a
/// flag. `None` for any other line.
fn documented_command(line: &str) -> Option<(String, Vec<String>)> {
    let line = line.trim_start();
    let line = line.strip_prefix("$ ").unwrap_or(line);
    let rest = line
        .strip_prefix("faultline ")
        .or_else(|| line.strip_prefix("cargo run --release -- "))?;
    let words = shell_words(rest);
    let words: Vec<&String> = words.iter().take_while(|w| !w.starts_with('#')).collect();
    // `faultline --version` names a flag of the binary itself, not a subcommand.
    let (sub, args) = if words.first().is_some_and(|w| !w.starts_with('-')) {
        (words[0].to_string(), words[1..].to_vec())
    } else {
        (String::new(), words)
    };
    let flags = args
        .iter()
        .filter(|w| w.starts_with("--") && w.as_str() != "--")
        .map(|w| {
            let name = w.split('=').next().unwrap_or("");
            name.trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .to_string()
        })
        .collect();
    Some((sub, flags))
}

/// Whether `help` names `flag` as a whole word (`--seed` is not found in `--seeds`).
fn help_names(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(i, _)| {
        help[i + flag.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'))
    })
}

/// `faultline SUB --help` (the binary's own help when `sub` is empty): its text, or `None`
/// when it does not exit 0 (no such subcommand).
fn help_of(sub: &str) -> Option<String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_faultline"));
    if !sub.is_empty() {
        command.arg(sub);
    }
    let out = command.arg("--help").output().unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_command_in_the_docs_names_real_flags() {
    let mut helps: std::collections::BTreeMap<String, Option<String>> = Default::default();
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in markdown_docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file
            .strip_prefix(root())
            .unwrap_or(file.as_path())
            .display()
            .to_string();
        // Some(true): inside a ```sh or ```console block; Some(false): inside another block.
        let mut block: Option<bool> = None;
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(lang) = trimmed.strip_prefix("```") {
                block = match block {
                    None => Some(matches!(lang.trim(), "sh" | "console")),
                    Some(_) => None,
                };
                continue;
            }
            if block != Some(true) {
                continue;
            }
            let Some((sub, flags)) = documented_command(line) else {
                continue;
            };
            checked += 1;
            let where_ = format!("{shown}:{}: {}", n + 1, line.trim());
            let help = helps.entry(sub.clone()).or_insert_with(|| help_of(&sub));
            let Some(help) = help else {
                failures.push(format!("{where_}\n    no subcommand `{sub}`"));
                continue;
            };
            // A `<PLACEHOLDER>` line shows a shape, not a command to run as written.
            if line.contains('<') {
                continue;
            }
            for flag in flags {
                if !help_names(help, &flag) {
                    failures.push(format!(
                        "{where_}\n    `faultline {sub} --help` has no {flag}"
                    ));
                }
            }
        }
    }
    assert!(checked > 20, "found only {checked} documented commands");
    assert!(
        failures.is_empty(),
        "documented commands that the binary does not take:\n{}",
        failures.join("\n")
    );
}
