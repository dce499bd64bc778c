//! Every integration test of `faultline-server` in one test binary: one build and one link
//! instead of 16.
//! Each file is still one concept; run one file's tests with
//! `cargo test --release -p faultline-server --test server auto_clock::`.

mod common;

mod auto_clock;
mod conformance_tools;
mod extreme_clock;
mod fleet;
mod fuzz;
mod hang_live;
mod hardening;
mod heavy_jobs;
mod hostile_headers;
mod keepalive_live;
mod live;
mod modern_budgets;
mod modern_live;
mod quiet_marker;
mod raw_http_fuzz;
mod restart_resume;
mod server_queues;
