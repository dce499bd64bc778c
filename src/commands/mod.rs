//! One file per subcommand.

pub mod bench;
pub mod run;
pub mod serve;
