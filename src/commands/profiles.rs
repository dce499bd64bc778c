//! `faultline profiles`: the SDK server profiles, one line each (name, then what it is),
//! so that a user finds the name `serve --profile` and a scenario's `server:` block take.

use std::process::ExitCode;

pub fn profiles() -> ExitCode {
    let width = faultline_model::PROFILES
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    for p in faultline_model::PROFILES {
        println!("{:width$}  {}", p.name, p.description);
    }
    ExitCode::SUCCESS
}
