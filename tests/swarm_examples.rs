//! The swarm examples of `examples/swarm/` work with the CLI as it is: the GitHub Actions
//! workflow and the Kubernetes Jobs are read as YAML, every `faultline ...` command they
//! run is checked against the binary's own `--help` (the subcommand exists, every flag is
//! accepted), and then both are played here, on a handful of seeds: the workflow's jobs
//! step by step (its shell steps run in bash as a runner runs them, its artifact steps move
//! files between the jobs' directories), the Jobs' containers once per completion index. What each
//! merges must be the very bytes one `faultline explore` over the same seeds writes, so a
//! matrix that disagrees with the `n` of `--shard k/n`, a renamed flag, an artifact name
//! the merge does not download or a shard left out all fail here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

const BIN: &str = env!("CARGO_BIN_EXE_faultline");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The seeds every example is played with here, in place of their own (a hundred million).
const SEEDS: &str = "20";

/// The YAML documents of `examples/swarm/NAME`.
fn example(name: &str) -> Vec<Yaml> {
    let path = Path::new(ROOT).join("examples/swarm").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A scalar as text (`8`, `true` and `"8"` alike); `None` for a missing key or a mapping.
fn scalar(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn text(y: &Yaml, what: &str) -> String {
    scalar(y).unwrap_or_else(|| panic!("{what}: expected a scalar, found {y:?}"))
}

/// A fresh directory for one test, removed first if an earlier run left it.
fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("faultline-swarm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory holding only `faultline` (the binary under test), where the image has it.
fn image_bin(root: &Path) -> PathBuf {
    let dir = root.join("image-bin");
    if !dir.exists() {
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(BIN, dir.join("faultline")).unwrap();
    }
    dir
}

/// This process's PATH without any directory holding a `faultline` (an installed one must
/// not stand in for a binary the example failed to put on the PATH).
fn system_path() -> Vec<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|dir| !dir.join("faultline").exists())
        .collect()
}

/// Every file under `dir` (recursively) by its path relative to `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let name = path.strip_prefix(base).unwrap().display().to_string();
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// What one `faultline explore --seeds SEEDS ARGS --out findings` writes, run in a fresh
/// directory (outside a clone, as the examples run it); the paths to the shrunk findings
/// inside the files are rewritten from `findings/` to `shown`, where the example's merge
/// wrote its own.
fn one_process(root: &Path, args: &[&str], shown: &str) -> BTreeMap<String, Vec<u8>> {
    let cwd = root.join("one-process");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = Command::new(BIN)
        .current_dir(&cwd)
        .args(["explore", "--seeds", SEEDS])
        .args(args)
        .args(["--out", "findings"])
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "one process: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    files(&cwd.join("findings"))
        .into_iter()
        .map(|(name, bytes)| {
            let text = String::from_utf8(bytes).unwrap();
            (name, text.replace("findings/", shown).into_bytes())
        })
        .collect()
}

/// The merged files are one process's files: same names, same bytes (findings, the JSON
/// with its counts and map, the map's text and SVG).
fn assert_same_as_one_process(
    merged: &BTreeMap<String, Vec<u8>>,
    one: &BTreeMap<String, Vec<u8>>,
    client: &str,
) {
    for name in [
        format!("explore-{client}.json"),
        format!("map-{client}.txt"),
        format!("map-{client}.svg"),
    ] {
        assert!(merged.contains_key(&name), "the merge wrote no {name}");
    }
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(merged),
        names(one),
        "merged and one process wrote other files"
    );
    for (name, bytes) in merged {
        assert!(
            *bytes == one[name],
            "{name} differs from one process's:\n{}\n---\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&one[name])
        );
    }
}

// ---------------------------------------------------------------------------------------
// The CLI's own description of itself.

/// `faultline PATH --help`: its subcommands and every spelling of its flags.
struct Help {
    commands: Vec<String>,
    flags: Vec<String>,
}

fn help(path: &[String]) -> Help {
    let out = Command::new(BIN).args(path).arg("--help").output().unwrap();
    assert!(out.status.success(), "faultline {path:?} --help");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut section = "";
    let (mut commands, mut flags) = (Vec::new(), Vec::new());
    for line in text.lines() {
        if !line.starts_with(' ') {
            section = line.trim_end_matches(':');
            continue;
        }
        let line = line.trim();
        match section {
            "Commands" => commands.extend(line.split_whitespace().next().map(String::from)),
            "Options" => {
                // "-o, --out <OUT>   Where ... [alias: --output]": the spelling before the
                // description, and the aliases at its end.
                let spec = line.split("  ").next().unwrap_or("");
                let aliases = line
                    .rsplit_once("[alias: ")
                    .or_else(|| line.rsplit_once("[aliases: "))
                    .map_or("", |(_, a)| a.trim_end_matches(']'));
                for word in spec.split_whitespace().chain(aliases.split(", ")) {
                    let word = word.trim_end_matches(',');
                    if word.starts_with('-') {
                        flags.push(word.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    Help { commands, flags }
}

/// The shell words of a script's lines (a `\` at a line's end joins the next), quotes
/// removed; comment lines left out.
fn shell_lines(script: &str) -> Vec<Vec<String>> {
    let joined = script.replace("\\\n", " ");
    let mut lines = Vec::new();
    for line in joined.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let (mut words, mut word, mut quote) = (Vec::new(), String::new(), None);
        for c in line.chars() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, c) if c.is_whitespace() => {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                }
                _ => word.push(c),
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        lines.push(words);
    }
    lines
}

/// Shell words that end a command (and may start another after them).
const OPERATORS: [&str; 9] = ["||", "&&", ";", "|", ">", "2>", ")", "then", "do"];

/// Every `faultline ...` command of a script (`faultline` where a command starts, not
/// `cargo build -p faultline`): the words after it, up to the end of its line or a shell
/// operator.
fn faultline_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    for words in shell_lines(script) {
        for at in 0..words.len() {
            let named = words[at] == "faultline" || words[at].ends_with("/faultline");
            if !named || (at > 0 && !OPERATORS.contains(&words[at - 1].as_str())) {
                continue;
            }
            let command = words[at + 1..]
                .iter()
                .take_while(|w| !OPERATORS.contains(&w.as_str()))
                .cloned()
                .collect();
            commands.push(command);
        }
    }
    commands
}

/// The subcommand path of a `faultline` command (`["explore", "merge"]`), after checking
/// that each is a subcommand of the one before and that `--help` of the last lists every
/// flag the command gives.
fn check_against_cli(command: &[String], source: &str) -> Vec<String> {
    let mut path: Vec<String> = Vec::new();
    for word in command {
        if word.starts_with('-') || !help(&path).commands.contains(word) {
            break;
        }
        path.push(word.clone());
    }
    assert!(
        !path.is_empty(),
        "{source}: `faultline {}` names no subcommand of faultline ({:?})",
        command.join(" "),
        help(&[]).commands
    );
    let accepted = help(&path).flags;
    for word in command.iter().filter(|w| w.starts_with('-')) {
        let flag = word.split('=').next().unwrap();
        assert!(
            accepted.iter().any(|a| a == flag),
            "{source}: `faultline {}` gives {flag}, which `faultline {} --help` does not list: {accepted:?}",
            command.join(" "),
            path.join(" ")
        );
    }
    path
}

#[test]
fn the_help_reader_sees_the_flags_and_subcommands_it_checks_against() {
    let explore = help(&["explore".to_string()]);
    assert!(explore.commands.contains(&"merge".to_string()));
    for flag in ["--seeds", "--shard", "--out", "-o", "--output", "--era"] {
        assert!(explore.flags.iter().any(|f| f == flag), "{flag}");
    }
    assert!(!explore.flags.iter().any(|f| f == "--shards"));
    // A renamed flag is caught.
    let renamed: Vec<String> = ["explore", "--seeds", "10", "--shards", "0/2"]
        .map(String::from)
        .to_vec();
    let caught = std::panic::catch_unwind(|| check_against_cli(&renamed, "a renamed flag"));
    assert!(caught.is_err(), "--shards was taken for a flag of explore");
    let unknown: Vec<String> = ["explorer", "--seeds", "10"].map(String::from).to_vec();
    assert!(std::panic::catch_unwind(|| check_against_cli(&unknown, "a typo")).is_err());
}

// ---------------------------------------------------------------------------------------
// GitHub Actions: the workflow played job by job.

/// What the workflow's `${{ }}` expressions may read.
#[derive(Clone, Default)]
struct Context {
    inputs: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
    matrix: BTreeMap<String, String>,
    needs: BTreeMap<String, BTreeMap<String, String>>,
    steps: BTreeMap<String, BTreeMap<String, String>>,
}

impl Context {
    /// One operand: a quoted literal or a context path; anything else is refused, so that
    /// the workflow keeps to what this test can play.
    fn operand(&self, operand: &str) -> String {
        let operand = operand.trim();
        if let Some(literal) = operand
            .strip_prefix('\'')
            .and_then(|o| o.strip_suffix('\''))
        {
            return literal.to_string();
        }
        let parts: Vec<&str> = operand.split('.').collect();
        let found = match parts[..] {
            // A run without inputs (a scheduled one) reads them as empty.
            ["inputs", name] => Some(self.inputs.get(name).cloned().unwrap_or_default()),
            ["env", name] => self.env.get(name).cloned(),
            ["matrix", name] => self.matrix.get(name).cloned(),
            ["needs", job, "outputs", name] => {
                self.needs.get(job).and_then(|o| o.get(name)).cloned()
            }
            ["steps", id, "outputs", name] => self.steps.get(id).and_then(|o| o.get(name)).cloned(),
            _ => panic!("`{operand}`: an expression this test does not know how to evaluate"),
        };
        found.unwrap_or_else(|| panic!("`{operand}` is not set here"))
    }

    /// `a || b || 'c'`: the first that is not empty.
    fn expression(&self, expression: &str) -> String {
        expression
            .split("||")
            .map(|o| self.operand(o))
            .find(|v| !v.is_empty())
            .unwrap_or_default()
    }

    /// `text` with each `${{ ... }}` replaced by its value.
    fn eval(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("${{") {
            let end = rest[at..].find("}}").expect("an unclosed ${{") + at;
            out.push_str(&rest[..at]);
            out.push_str(&self.expression(&rest[at + 3..end]));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// The evaluated `env:` mapping of a workflow, job or step, over this context's.
    fn with_env(&self, env: &Yaml) -> Context {
        let mut next = self.clone();
        if let Some(env) = env.as_hash() {
            for (k, v) in env {
                let value = self.eval(&text(v, "an env value"));
                next.env.insert(text(k, "an env name"), value);
            }
        }
        next
    }
}

/// `*` in a name pattern, as the artifact actions and the shell use it.
fn glob(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head)
                && (0..=name.len() - head.len()).any(|skip| glob(tail, &name[head.len() + skip..]))
        }
    }
}

/// The artifacts of one workflow run: name, then each file's path in it and where it is.
type Artifacts = BTreeMap<String, Vec<(String, PathBuf)>>;

/// One job played in a fresh workspace: its shell steps in bash as GitHub's runner runs
/// `shell: bash` (`bash --noprofile --norc -eo pipefail`, GITHUB_OUTPUT and GITHUB_PATH
/// honoured), its artifact steps as copies. The build of faultline is not repeated: its
/// step must build the `faultline` package in release, and the binary under test stands
/// where that build puts it. Returns the workspace and the job's outputs.
fn play_job(
    workflow: &Yaml,
    job: &str,
    context: &Context,
    artifacts: &mut Artifacts,
    root: &Path,
    run_id: &str,
) -> (PathBuf, BTreeMap<String, String>) {
    let spec = &workflow["jobs"][job];
    assert!(!spec.is_badvalue(), "the workflow has no job {job}");
    let workspace = root.join(format!("{job}{run_id}"));
    let runner_temp = root.join(format!("{job}{run_id}-runner"));
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(&runner_temp).unwrap();
    let mut context = context.with_env(&spec["env"]);
    let mut path_added: Vec<PathBuf> = Vec::new();
    let steps = spec["steps"].as_vec().expect("steps");
    for (n, step) in steps.iter().enumerate() {
        let step_context = context.with_env(&step["env"]);
        let with = |key: &str| scalar(&step["with"][key]).map(|v| step_context.eval(&v));
        let here = format!("job {job}, step {}", n + 1);
        if let Some(action) = step["uses"].as_str() {
            let (name, version) = action.split_once('@').expect("an action@version");
            match name {
                "actions/checkout" | "dtolnay/rust-toolchain" => {}
                "actions/upload-artifact" => {
                    assert_eq!(version, "v4", "{here}");
                    let artifact = with("name").expect("an artifact name");
                    let path = with("path").expect("an artifact path");
                    let uploaded = upload(&workspace.join(&path));
                    if with("if-no-files-found").as_deref() == Some("error") {
                        assert!(!uploaded.is_empty(), "{here}: no file at {path}");
                    }
                    // upload-artifact@v4 refuses a name already uploaded in the run.
                    assert!(
                        artifacts.insert(artifact.clone(), uploaded).is_none(),
                        "{here}: a second artifact named {artifact}"
                    );
                }
                "actions/download-artifact" => {
                    assert_eq!(version, "v4", "{here}");
                    let into = workspace.join(with("path").unwrap_or_default());
                    let chosen: Vec<&String> = match (with("name"), with("pattern")) {
                        (Some(name), None) => vec![
                            artifacts
                                .get_key_value(&name)
                                .unwrap_or_else(|| panic!("{here}: no artifact {name}"))
                                .0,
                        ],
                        (None, Some(pattern)) => {
                            artifacts.keys().filter(|a| glob(&pattern, a)).collect()
                        }
                        other => panic!("{here}: name or pattern, not {other:?}"),
                    };
                    assert!(!chosen.is_empty(), "{here}: no artifact to download");
                    let merge = with("merge-multiple").as_deref() == Some("true");
                    for artifact in chosen {
                        // One artifact by name, or several merged, land in `path`; several
                        // unmerged each in a directory of their name.
                        let dir = if with("name").is_some() || merge {
                            into.clone()
                        } else {
                            into.join(artifact)
                        };
                        for (file, from) in &artifacts[artifact] {
                            let to = dir.join(file);
                            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                            // (A symlink: a copy of the binary for every job costs more
                            // than it shows. The runner's lost executable bit is not played.)
                            std::os::unix::fs::symlink(from, &to).unwrap();
                        }
                    }
                }
                _ => panic!("{here}: {action} is an action this test cannot play"),
            }
            continue;
        }
        let script = text(&step["run"], &format!("{here}: run"));
        if script.trim_start().starts_with("cargo build") {
            let words = &shell_lines(&script)[0];
            for needed in ["--release", "--locked", "-p", "faultline"] {
                assert!(words.iter().any(|w| w == needed), "{here}: {script}");
            }
            let built = workspace.join("target/release");
            std::fs::create_dir_all(&built).unwrap();
            std::os::unix::fs::symlink(BIN, built.join("faultline")).unwrap();
            continue;
        }
        assert_eq!(
            text(&workflow["defaults"]["run"]["shell"], "defaults.run.shell"),
            "bash",
            "the steps are played in bash"
        );
        let (output, path_file) = (runner_temp.join("output"), runner_temp.join("path"));
        std::fs::write(&output, "").unwrap();
        std::fs::write(&path_file, "").unwrap();
        let script_file = runner_temp.join(format!("step{n}.sh"));
        std::fs::write(&script_file, &script).unwrap();
        let path = std::env::join_paths(path_added.iter().cloned().chain(system_path())).unwrap();
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script_file)
            .current_dir(&workspace)
            .env_clear()
            .envs(&step_context.env)
            .env("PATH", path)
            .env("HOME", &runner_temp)
            .env("RUNNER_TEMP", &runner_temp)
            .env("GITHUB_WORKSPACE", &workspace)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_PATH", &path_file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{here} failed ({}):\n{script}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(id) = step["id"].as_str() {
            let outputs = std::fs::read_to_string(&output).unwrap();
            let outputs = outputs
                .lines()
                .map(|l| {
                    let (k, v) = l.split_once('=').expect("name=value in GITHUB_OUTPUT");
                    (k.to_string(), v.to_string())
                })
                .collect();
            context.steps.insert(id.to_string(), outputs);
        }
        // The runner puts each added directory before the PATH of later steps.
        for dir in std::fs::read_to_string(&path_file).unwrap().lines().rev() {
            path_added.insert(0, PathBuf::from(dir));
        }
    }
    let outputs = spec["outputs"]
        .as_hash()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (text(k, "an output"), context.eval(&text(v, "an output"))))
                .collect()
        })
        .unwrap_or_default();
    (workspace, outputs)
}

/// The files an upload-artifact `path` names (a file, a directory, or `*` in the last part),
/// by their path inside the artifact.
fn upload(path: &Path) -> Vec<(String, PathBuf)> {
    if !path.exists() && !path.to_string_lossy().contains('*') {
        return Vec::new();
    }
    if path.is_dir() {
        return files(path)
            .into_keys()
            .map(|f| (f.clone(), path.join(f)))
            .collect();
    }
    let pattern = path.file_name().unwrap().to_str().unwrap();
    let Ok(entries) = std::fs::read_dir(path.parent().unwrap()) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            glob(pattern, &name).then_some((name, p))
        })
        .collect();
    found.sort();
    found
}

/// The jobs a job `needs`.
fn needs(workflow: &Yaml, job: &str) -> Vec<String> {
    match &workflow["jobs"][job]["needs"] {
        Yaml::Array(a) => a.iter().map(|n| text(n, "needs")).collect(),
        other => scalar(other).into_iter().collect(),
    }
}

/// What a played workflow did: its shard count, the matrix it ran, the files of each shard
/// job's artifact, and the files of the merge's.
struct Played {
    shards: u64,
    matrix: Vec<u64>,
    shard_files: BTreeMap<String, Vec<String>>,
    merged: BTreeMap<String, Vec<u8>>,
}

/// The workflow played from `inputs`, as a dispatch from the Actions tab starts it.
fn play_workflow(inputs: &[(&str, &str)], root: &Path) -> Played {
    let workflow = &example("github-actions.yml")[0];
    let mut context = Context::default();
    let declared = &workflow["on"]["workflow_dispatch"]["inputs"];
    // Inputs not given take their defaults, as the Actions tab fills them.
    for (name, spec) in declared.as_hash().expect("workflow_dispatch inputs") {
        let name = text(name, "an input");
        let value = inputs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
            .or_else(|| scalar(&spec["default"]))
            .unwrap_or_default();
        context.inputs.insert(name, value);
    }
    for (name, _) in inputs {
        assert!(context.inputs.contains_key(*name), "no input {name}");
    }
    let context = context.with_env(&workflow["env"]);
    let mut artifacts = Artifacts::new();
    let (_, build) = play_job(workflow, "build", &context, &mut artifacts, root, "");

    assert_eq!(needs(workflow, "shard"), ["build"]);
    let shard = &workflow["jobs"]["shard"];
    let matrix_spec = text(&shard["strategy"]["matrix"]["shard"], "the matrix");
    let matrix_json = matrix_spec
        .trim()
        .strip_prefix("${{ fromJSON(")
        .and_then(|m| m.strip_suffix(") }}"))
        .unwrap_or_else(|| panic!("the matrix is {matrix_spec}, not fromJSON(a job's output)"));
    let mut shard_context = context.clone();
    shard_context.needs.insert("build".into(), build);
    let matrix: Vec<u64> = serde_json::from_str(&shard_context.operand(matrix_json)).unwrap();
    let mut shard_files = BTreeMap::new();
    for k in &matrix {
        let mut context = shard_context.clone();
        context.matrix.insert("shard".into(), k.to_string());
        let before: Vec<String> = artifacts.keys().cloned().collect();
        play_job(
            workflow,
            "shard",
            &context,
            &mut artifacts,
            root,
            &format!("-{k}"),
        );
        for (name, files) in &artifacts {
            if !before.contains(name) {
                shard_files.insert(name.clone(), files.iter().map(|(f, _)| f.clone()).collect());
            }
        }
    }

    assert_eq!(needs(workflow, "merge"), ["shard"]);
    let (merge_workspace, _) = play_job(workflow, "merge", &context, &mut artifacts, root, "");
    // The merge downloaded exactly the shards' artifacts, by its pattern.
    let pattern = workflow["jobs"]["merge"]["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find_map(|s| scalar(&s["with"]["pattern"]))
        .expect("the merge downloads the shards by a pattern");
    let downloaded: Vec<&String> = artifacts.keys().filter(|a| glob(&pattern, a)).collect();
    assert_eq!(
        downloaded,
        shard_files.keys().collect::<Vec<_>>(),
        "the merge's pattern {pattern} and the shards' artifact names"
    );
    assert!(merge_workspace.exists());
    let merged_artifact = artifacts
        .iter()
        .filter(|(a, _)| !downloaded.contains(a) && !shard_files.contains_key(*a))
        .find(|(_, files)| files.iter().any(|(f, _)| f.starts_with("explore-")))
        .map(|(a, _)| a.clone())
        .expect("the merge uploads its findings");
    let merged = artifacts[&merged_artifact]
        .iter()
        .map(|(name, path)| (name.clone(), std::fs::read(path).unwrap()))
        .collect();
    Played {
        shards: context.env["SHARDS"].parse().expect("SHARDS is a number"),
        matrix,
        shard_files,
        merged,
    }
}

/// The `faultline` commands of every `run:` step of the workflow.
fn workflow_commands() -> Vec<(String, Vec<String>)> {
    let workflow = &example("github-actions.yml")[0];
    let mut commands = Vec::new();
    for (job, spec) in workflow["jobs"].as_hash().expect("jobs") {
        for step in spec["steps"].as_vec().expect("steps") {
            if let Some(script) = step["run"].as_str() {
                for command in faultline_commands(script) {
                    commands.push((format!("job {}", text(job, "a job")), command));
                }
            }
        }
    }
    commands
}

#[test]
fn the_workflow_runs_commands_the_cli_accepts() {
    let commands = workflow_commands();
    let paths: Vec<Vec<String>> = commands
        .iter()
        .map(|(source, command)| check_against_cli(command, source))
        .collect();
    assert!(
        paths.iter().any(|p| p == &["explore"]) && paths.iter().any(|p| p == &["explore", "merge"]),
        "the workflow explores and merges: {commands:?}"
    );
    assert!(
        commands
            .iter()
            .any(|(_, c)| c.iter().any(|w| w == "--shard")),
        "a shard job gives --shard: {commands:?}"
    );
}

#[test]
fn the_workflows_defaults_are_its_inputs_defaults() {
    // A scheduled run has no inputs: the env's fallbacks must be the inputs' defaults.
    let workflow = &example("github-actions.yml")[0];
    let scheduled = Context::default().with_env(&workflow["env"]);
    let mut dispatched = Context::default();
    for (name, spec) in workflow["on"]["workflow_dispatch"]["inputs"]
        .as_hash()
        .unwrap()
    {
        let default = scalar(&spec["default"]).unwrap_or_else(|| panic!("{name:?}: no default"));
        dispatched.inputs.insert(text(name, "an input"), default);
    }
    for name in ["seeds", "client", "shards", "era"] {
        assert!(dispatched.inputs.contains_key(name), "no input {name}");
    }
    let dispatched = dispatched.with_env(&workflow["env"]);
    assert_eq!(scheduled.env, dispatched.env);
}

/// The default shape (8 shards) and another (3 shards, another client and era) each merge
/// to one process's bytes: the matrix is the shard count's, each shard job writes and
/// uploads shard k of n, and the merge finds them all.
#[test]
fn the_workflow_played_on_a_few_seeds_merges_to_one_processs_bytes() {
    let root = tmp("actions");
    for (run, inputs, client, era) in [
        ("default", vec![("seeds", SEEDS)], "naive", "legacy"),
        (
            "three",
            vec![
                ("seeds", SEEDS),
                ("shards", "3"),
                ("client", "guarded"),
                ("era", "mixed"),
            ],
            "guarded",
            "mixed",
        ),
    ] {
        let dir = root.join(run);
        let played = play_workflow(&inputs, &dir);
        let n = played.shards;
        assert_eq!(n, if run == "default" { 8 } else { 3 }, "{run}");
        assert_eq!(
            played.matrix,
            (0..n).collect::<Vec<_>>(),
            "{run}: the matrix"
        );
        // Each shard job uploaded its own result, shard k of n, and only that.
        let mut uploaded: Vec<Vec<String>> = played.shard_files.into_values().collect();
        uploaded.sort();
        let mut expected: Vec<Vec<String>> = (0..n)
            .map(|k| vec![format!("explore-{client}-shard-{k}-of-{n}.json")])
            .collect();
        expected.sort();
        assert_eq!(uploaded, expected, "{run}: the shards' artifacts");
        let one = one_process(&dir, &["--client", client, "--era", era], "findings/");
        assert_same_as_one_process(&played.merged, &one, client);
    }
    let _ = std::fs::remove_dir_all(&root);
}

// ---------------------------------------------------------------------------------------
// Kubernetes: the Indexed Job's container once per index, then the merge Job's.

fn env_of(container: &Yaml) -> BTreeMap<String, String> {
    container["env"]
        .as_vec()
        .map(|env| {
            env.iter()
                .map(|e| {
                    let name = text(&e["name"], "an env name");
                    assert!(
                        e["valueFrom"].is_badvalue(),
                        "{name}: valueFrom is not played here"
                    );
                    (name.clone(), text(&e["value"], &name))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The only container of a Job's pod.
fn container(job: &Yaml) -> &Yaml {
    let containers = job["spec"]["template"]["spec"]["containers"]
        .as_vec()
        .expect("containers");
    assert_eq!(containers.len(), 1, "one container");
    &containers[0]
}

/// The claim a Job's container mounts, and where.
fn mount(job: &Yaml) -> (String, String) {
    let pod = &job["spec"]["template"]["spec"];
    let mounts = container(job)["volumeMounts"]
        .as_vec()
        .expect("volumeMounts");
    assert_eq!(mounts.len(), 1, "one volume");
    let volume = text(&mounts[0]["name"], "a mount's volume");
    let claim = pod["volumes"]
        .as_vec()
        .expect("volumes")
        .iter()
        .find(|v| v["name"].as_str() == Some(volume.as_str()))
        .map(|v| text(&v["persistentVolumeClaim"]["claimName"], "claimName"))
        .expect("the mounted volume is a claim");
    (claim, text(&mounts[0]["mountPath"], "mountPath"))
}

/// The container's command and arguments.
fn argv(job: &Yaml) -> Vec<String> {
    let c = container(job);
    let mut argv: Vec<String> = Vec::new();
    for part in ["command", "args"] {
        for word in c[part].as_vec().into_iter().flatten() {
            argv.push(text(word, part));
        }
    }
    argv
}

/// The Job of a manifest file (the only one).
fn job_in(file: &str) -> (Vec<Yaml>, usize) {
    let docs = example(file);
    let jobs: Vec<usize> = (0..docs.len())
        .filter(|&i| docs[i]["kind"].as_str() == Some("Job"))
        .collect();
    assert_eq!(jobs.len(), 1, "{file}: one Job");
    (docs, jobs[0])
}

/// Runs a Job's container as its pod would: `faultline` on the PATH (where the image has
/// it), the claim at `volume` in place of its mount path, `env` over the container's own.
fn run_container(job: &Yaml, volume: &Path, root: &Path, env: &[(&str, String)]) {
    let (_, mount_path) = mount(job);
    let here = volume.display().to_string();
    let argv: Vec<String> = argv(job)
        .iter()
        .map(|a| a.replace(&mount_path, &here))
        .collect();
    let mut vars = env_of(container(job));
    for value in vars.values_mut() {
        *value = value.replace(&mount_path, &here);
    }
    for (k, v) in env {
        vars.insert(k.to_string(), v.clone());
    }
    let path = std::env::join_paths(std::iter::once(image_bin(root)).chain(system_path())).unwrap();
    let cwd = root.join("workdir");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(&cwd)
        .env_clear()
        .envs(&vars)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?} with {env:?} failed ({}):\n{}\n{}",
        argv,
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_kubernetes_jobs_run_commands_the_cli_accepts() {
    let mut paths = Vec::new();
    for file in ["kubernetes-indexed-job.yaml", "kubernetes-merge-job.yaml"] {
        let (docs, at) = job_in(file);
        let argv = argv(&docs[at]);
        assert_eq!(argv[..2], ["sh", "-c"], "{file}: a shell script");
        let commands = faultline_commands(&argv[2]);
        assert!(!commands.is_empty(), "{file}: no faultline command");
        for command in commands {
            paths.push(check_against_cli(&command, file));
        }
    }
    assert_eq!(
        paths,
        [
            vec!["explore".to_string()],
            vec!["explore".into(), "merge".into()]
        ]
    );
}

#[test]
fn the_indexed_job_played_on_a_few_seeds_merges_to_one_processs_bytes() {
    let (docs, at) = job_in("kubernetes-indexed-job.yaml");
    let shard_job = &docs[at];
    let (merge_docs, merge_at) = job_in("kubernetes-merge-job.yaml");
    let merge_job = &merge_docs[merge_at];

    // One pod per index, all at once, each index once.
    let spec = &shard_job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let n = spec["completions"].as_i64().expect("completions");
    assert_eq!(spec["parallelism"].as_i64(), Some(n), "parallelism");
    let shard_env = env_of(container(shard_job));
    let merge_env = env_of(container(merge_job));
    assert_eq!(shard_env["SHARDS"], n.to_string(), "SHARDS and completions");
    assert_eq!(merge_env["SHARDS"], n.to_string(), "the merge's SHARDS");
    assert_eq!(
        merge_env["CLIENT"], shard_env["CLIENT"],
        "the merge's CLIENT"
    );
    assert_eq!(merge_job["spec"]["completions"].as_i64(), Some(1));
    for job in [shard_job, merge_job] {
        assert_eq!(
            job["spec"]["template"]["spec"]["restartPolicy"].as_str(),
            Some("Never"),
            "a pod failure policy needs restartPolicy Never"
        );
    }

    // Both mount the claim the manifest declares, shared by every node's pods.
    let (claim, _) = mount(shard_job);
    assert_eq!(
        mount(merge_job).0,
        claim,
        "the merge mounts the shards' claim"
    );
    let declared = docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("PersistentVolumeClaim"))
        .expect("the manifest declares the claim");
    assert_eq!(declared["metadata"]["name"].as_str(), Some(claim.as_str()));
    assert!(
        declared["spec"]["accessModes"]
            .as_vec()
            .unwrap()
            .iter()
            .any(|m| m.as_str() == Some("ReadWriteMany")),
        "pods on many nodes write to the claim"
    );

    // The image is the one examples/swarm/Dockerfile builds, with faultline on its PATH.
    let dockerfile =
        std::fs::read_to_string(Path::new(ROOT).join("examples/swarm/Dockerfile")).unwrap();
    let image = text(&container(shard_job)["image"], "image");
    assert_eq!(text(&container(merge_job)["image"], "image"), image);
    assert!(
        dockerfile.contains(&format!("-t {image} ")),
        "the Dockerfile's build command tags {image}"
    );
    assert!(dockerfile.contains("cargo build --release --locked -p faultline"));
    assert!(
        dockerfile.contains("COPY --from=build /usr/local/bin/faultline /usr/local/bin/faultline")
    );

    // Played: n pods, index 0 to n-1, then the merge.
    let root = tmp("kubernetes");
    let volume = root.join("claim");
    std::fs::create_dir_all(&volume).unwrap();
    for k in 0..n {
        run_container(
            shard_job,
            &volume,
            &root,
            &[
                ("SEEDS", SEEDS.to_string()),
                ("JOB_COMPLETION_INDEX", k.to_string()),
            ],
        );
    }
    let client = &shard_env["CLIENT"];
    let shards = volume.join("shards");
    let mut written: Vec<String> = files(&shards).into_keys().collect();
    written.retain(|f| f.starts_with("explore-"));
    let mut expected: Vec<String> = (0..n)
        .map(|k| format!("explore-{client}-shard-{k}-of-{n}.json"))
        .collect();
    expected.sort();
    assert_eq!(written, expected, "each index wrote shard k of n");
    run_container(merge_job, &volume, &root, &[]);
    let merged = files(&volume.join("merged"));
    let shown = format!("{}/", volume.join("merged").display());
    let one = one_process(
        &root,
        &["--client", client, "--era", &shard_env["ERA"]],
        &shown,
    );
    assert_same_as_one_process(&merged, &one, client);
    let _ = std::fs::remove_dir_all(&root);
}
