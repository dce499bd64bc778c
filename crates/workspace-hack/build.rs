//! Empty on purpose: a build script makes cargo resolve this crate's build-dependencies
//! (syn's features for the proc macros; see Cargo.toml).
fn main() {}
