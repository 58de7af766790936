//! `convert`: a trace of any format read (with its import report on stderr) and written as
//! SWF or a Batsim JSON workload (issue #29).

use std::path::Path;

use gridscope::workload::{write_batsim_json, write_swf};

use crate::cli::{ConvertArgs, ConvertTo};
use crate::io::read_trace;
use crate::output::Inputs;
use crate::{output, CliError};

pub fn convert(a: &ConvertArgs) -> Result<(), CliError> {
    let mut inputs = Inputs::default();
    inputs.add(Path::new(&a.trace));
    inputs.check(&a.out, "--out")?;
    let w = read_trace(&a.trace, a.strict, &a.limits.limits(), &a.format)?;
    let text = match a.to {
        ConvertTo::Swf => write_swf(&w, &w.report.header),
        ConvertTo::BatsimJson => write_batsim_json(&w, a.nb_res),
    };
    output::write_file(&a.out, text.as_bytes())?;
    // The report goes to stderr: what was left out, and why, is never silent.
    use std::io::Write;
    let _ = write!(std::io::stderr(), "{}", w.report.summary());
    Ok(())
}
