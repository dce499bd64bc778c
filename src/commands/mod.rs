//! One file per subcommand.

pub mod bench;
pub mod explain;
pub mod explore;
pub mod grade;
pub mod probe;
pub mod profiles;
pub mod render;
pub mod run;
pub mod scenarios;
pub mod serve;
