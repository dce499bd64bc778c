//! `faultline scenarios`: the scenarios bundled into the binary, by name, with their
//! summaries: what `run NAME`, `explain NAME`, `render --scenario NAME` and `bench` accept
//! from any directory.

use std::process::ExitCode;

use clap::Args;

use crate::bundled::BUNDLED;

#[derive(Args)]
pub struct ScenariosArgs {}

pub fn scenarios(_args: ScenariosArgs) -> ExitCode {
    let width = BUNDLED.iter().map(|b| b.name.len()).max().unwrap_or(0);
    for b in BUNDLED {
        match b.scenario() {
            Ok(s) => println!(
                "{:<width$}  {}\n{:<width$}  ({})",
                b.name, s.summary, "", b.path
            ),
            Err(e) => {
                eprintln!("error: bundled scenario {e}");
                return ExitCode::from(2);
            }
        }
    }
    println!("\nrun one with: faultline run NAME (a file path works too, and wins over a name)");
    ExitCode::SUCCESS
}
