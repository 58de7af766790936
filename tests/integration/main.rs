//! The one integration-test binary: golden schedules, the differential test against a
//! reference scheduler, real traces and the CLI.

mod differential;
mod reference;
