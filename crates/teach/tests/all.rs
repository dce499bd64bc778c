//! Every integration test of `faultline-teach` in one test binary: one build and one link
//! instead of 2.
//! Each file is still one concept; run one file's tests with
//! `cargo test --release -p faultline-teach --test teach diagrams::`.

mod diagrams;
mod explain;
