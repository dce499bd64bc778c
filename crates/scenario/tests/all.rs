//! Every integration test of `faultline-scenario` in one test binary: one build and one link
//! instead of 2.
//! Each file is still one concept; run one file's tests with
//! `cargo test --release -p faultline-scenario --test scenario idle_proxy_checks::`.

mod idle_proxy_checks;
mod modern_checks;
