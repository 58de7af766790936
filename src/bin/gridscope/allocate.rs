//! `allocate`: SF's static split of a batch stream over resources of given rates.

use std::fmt::Write;

use gridscope::allocation::fractions::{
    check_fractions, owa_batch, predicted_response, validate, weighted,
};

use crate::cli::{AllocateArgs, StaticPolicy};
use crate::{output, CliError};

pub fn allocate(a: &AllocateArgs) -> Result<(), CliError> {
    let rates = &a
        .rates
        .as_ref()
        .ok_or_else(|| CliError::Usage("--rates is required (e.g. --rates 1,1,1,16)".into()))?
        .0;
    let lambda = a
        .lambda
        .ok_or_else(|| CliError::Usage("--lambda is required (batches per second)".into()))?;
    let k = a.batch_size;
    validate(rates, lambda, k).map_err(CliError::Failed)?;
    let fractions = match a.policy {
        StaticPolicy::Owa => owa_batch(rates, lambda, k).map_err(CliError::Failed)?,
        StaticPolicy::Ww => weighted(rates),
    };
    check_fractions(&fractions).map_err(CliError::Failed)?;
    // The fractions are valid and the system is not saturated, so the prediction exists
    // unless the numbers are beyond double precision.
    let predicted = predicted_response(rates, &fractions, lambda, k).ok_or_else(|| {
        CliError::Failed(
            "the predicted response time is beyond double precision; rescale the time unit".into(),
        )
    })?;
    if a.json {
        let v = serde_json::json!({"fractions": fractions, "predicted_mean_response_s": predicted});
        return output::stdout(&format!("{v}\n"));
    }
    let mut s = String::from("resource  rate      fraction\n");
    for (i, (r, f)) in rates.iter().zip(&fractions).enumerate() {
        let _ = writeln!(s, "{:<9} {:<9} {:.6}", i + 1, r, f);
    }
    let _ = writeln!(s, "predicted mean response (SF eq. 7): {predicted:.6} s");
    output::stdout(&s)
}
