//! The static allocation rules of SF §IV: how to split a stream of batches of k jobs across
//! single-server resources of rates μ_i.

/// A number for an error message: plain when short, in scientific notation when Rust's
/// plain form would run to hundreds of digits (a rate of 10³⁰⁰) or lose a tiny one.
fn short(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && !(1e-6..1e15).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Why fractions could not be computed; the message says what to change.
pub fn validate(rates: &[f64], lambda: f64, batch: u32) -> Result<(), String> {
    if rates.is_empty() {
        return Err("no resource rates given".into());
    }
    if let Some(r) = rates.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(format!(
            "every rate must be a positive number (got {})",
            short(*r)
        ));
    }
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(format!(
            "the batch arrival rate must be positive (got {})",
            short(lambda)
        ));
    }
    if batch == 0 {
        return Err("the batch size must be at least 1".into());
    }
    let total: f64 = rates.iter().sum();
    let offered = lambda * batch as f64;
    if !total.is_finite() {
        return Err(format!(
            "the rates sum to more than a double can hold ({:e} is the largest); rescale the units",
            f64::MAX
        ));
    }
    if total <= offered {
        return Err(format!(
            "the system is saturated: total rate {} ≤ λ·k = {}; lower λ or k, or add capacity",
            short(total),
            short(offered)
        ));
    }
    Ok(())
}

/// Weighted workload (SF eq. 2): α_i = μ_i / Σ μ_j.
pub fn weighted(rates: &[f64]) -> Vec<f64> {
    let total: f64 = rates.iter().sum();
    rates.iter().map(|r| r / total).collect()
}

/// Fractions are a distribution: finite, none negative, summing to 1 (within 10⁻⁶). Extreme
/// inputs (a λ of 10⁻³²⁰, rates 10³⁰⁰ apart) break double precision; the result is then
/// refused with the reason instead of printed as `[0, 0]` or `null`.
pub fn check_fractions(alpha: &[f64]) -> Result<(), String> {
    let sum: f64 = alpha.iter().sum();
    if alpha.iter().all(|a| a.is_finite() && *a >= 0.0) && (sum - 1.0).abs() <= 1e-6 {
        return Ok(());
    }
    Err(format!(
        "the fractions could not be computed in double precision (they sum to {sum}); the arrival \
         rate and the service rates are too far apart — rescale the time unit so both are near 1",
        sum = short(sum)
    ))
}

/// Optimal workload allocation for batch arrivals (SF eq. 11 with the elimination loop of
/// Fig. 2): resources are taken slowest first; one whose fraction comes out negative gets 0
/// and leaves the sums, which then cover only the faster resources.
pub fn owa_batch(rates: &[f64], lambda: f64, batch: u32) -> Result<Vec<f64>, String> {
    validate(rates, lambda, batch)?;
    let k = batch as f64;
    let root = |mu: f64| libm::sqrt(4.0 * mu * lambda + 4.0 * mu * mu);
    // Stable sort: equal rates keep their input order, so results never depend on ties.
    let mut order: Vec<usize> = (0..rates.len()).collect();
    order.sort_by(|&a, &b| rates[a].total_cmp(&rates[b]));
    let mut alpha = vec![0.0; rates.len()];
    let mut m = 0;
    for pos in 0..order.len() {
        let active = &order[m..];
        let sum_rates: f64 = active.iter().map(|&j| 2.0 * rates[j]).sum::<f64>() - 2.0 * lambda * k;
        let sum_roots: f64 = active.iter().map(|&j| root(rates[j])).sum();
        let i = order[pos];
        let a = (2.0 * rates[i] - root(rates[i]) * sum_rates / sum_roots) / (2.0 * lambda * k);
        if a < 0.0 {
            m += 1;
        } else {
            alpha[i] = a;
        }
    }
    check_fractions(&alpha)?;
    Ok(alpha)
}

/// Mean response time of the system under fractions `alpha` (SF eq. 7), `None` when a
/// resource would be saturated.
pub fn predicted_response(rates: &[f64], alpha: &[f64], lambda: f64, batch: u32) -> Option<f64> {
    let k = batch as f64;
    let mut t = 0.0;
    for (&mu, &a) in rates.iter().zip(alpha) {
        if a == 0.0 {
            continue;
        }
        let denom = 2.0 * mu - 2.0 * a * k * lambda;
        if denom <= 0.0 {
            return None;
        }
        t += a * (a * k + 1.0) / denom;
    }
    t.is_finite().then_some(t)
}

/// Both static allocations of one system with their predicted mean response times (the
/// page's allocation calculator).
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub rates: Vec<f64>,
    /// OWA's fractions (SF eq. 11).
    pub owa: Vec<f64>,
    /// WW's fractions (SF eq. 2).
    pub ww: Vec<f64>,
    /// SF eq. 7 under each; `None` when a resource would be saturated.
    pub t_owa: Option<f64>,
    pub t_ww: Option<f64>,
}

/// OWA and WW fractions for `rates`, λ and k, with the mean response time each predicts;
/// errors are [`validate`]'s messages.
pub fn allocate(rates: Vec<f64>, lambda: f64, batch: u32) -> Result<Allocation, String> {
    validate(&rates, lambda, batch)?;
    let owa = owa_batch(&rates, lambda, batch)?;
    let ww = weighted(&rates);
    Ok(Allocation {
        t_owa: predicted_response(&rates, &owa, lambda, batch),
        t_ww: predicted_response(&rates, &ww, lambda, batch),
        rates,
        owa,
        ww,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SF Table I: nine resources of speed 1 and one of speed h, λ = 0.1, k = 10.
    #[test]
    fn reproduces_sf_table_one() {
        for (h, owa, ww) in [
            (16.0, 0.888, 0.640),
            (17.0, 0.909, 0.654),
            (18.0, 0.928, 0.667),
            (19.0, 0.946, 0.679),
            (20.0, 0.963, 0.690),
        ] {
            let mut rates = vec![1.0; 9];
            rates.push(h);
            let a = owa_batch(&rates, 0.1, 10).unwrap();
            assert_eq!(format!("{:.3}", a[9]), format!("{owa:.3}"), "h = {h}");
            assert!((a.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            let w = weighted(&rates);
            assert_eq!(format!("{:.3}", w[9]), format!("{ww:.3}"), "h = {h}");
            assert!((w[9] - h / (9.0 + h)).abs() < 1e-12);
        }
    }

    #[test]
    fn homogeneous_is_equal_shares_and_owa_beats_ww_when_heterogeneous() {
        let a = owa_batch(&[2.0, 2.0, 2.0, 2.0], 0.1, 10).unwrap();
        assert!(a.iter().all(|x| (x - 0.25).abs() < 1e-12));
        let rates = [1.0, 1.0, 1.0, 16.0];
        let owa = owa_batch(&rates, 0.1, 10).unwrap();
        let t_owa = predicted_response(&rates, &owa, 0.1, 10).unwrap();
        let t_ww = predicted_response(&rates, &weighted(&rates), 0.1, 10).unwrap();
        assert!(t_owa < t_ww);
    }

    #[test]
    fn bad_input_is_refused_with_a_reason() {
        assert!(owa_batch(&[], 0.1, 10).unwrap_err().contains("no resource"));
        assert!(owa_batch(&[1.0, 0.0], 0.1, 10)
            .unwrap_err()
            .contains("positive"));
        assert!(owa_batch(&[1.0, 1.0], 0.2, 10)
            .unwrap_err()
            .contains("saturated"));
        assert!(owa_batch(&[1.0], 0.1, 0)
            .unwrap_err()
            .contains("batch size"));
    }

    #[test]
    fn allocate_gives_both_fractions_and_their_predictions() {
        let mut rates = vec![1.0; 9];
        rates.push(16.0);
        let a = allocate(rates.clone(), 0.1, 10).unwrap();
        assert_eq!(a.rates, rates);
        assert_eq!(a.owa, owa_batch(&rates, 0.1, 10).unwrap());
        assert_eq!(a.ww, weighted(&rates));
        assert_eq!(format!("{:.3}", a.owa[9]), "0.888");
        assert_eq!(a.ww[9], 16.0 / 25.0);
        assert_eq!(a.t_owa, predicted_response(&rates, &a.owa, 0.1, 10));
        assert_eq!(a.t_ww, predicted_response(&rates, &a.ww, 0.1, 10));
        assert!(a.t_owa.unwrap() < a.t_ww.unwrap());
    }

    #[test]
    fn allocate_refuses_what_validate_refuses() {
        for (rates, lambda, batch) in [
            (vec![], 0.1, 10),
            (vec![1.0, -2.0], 0.1, 10),
            (vec![1.0, 1.0], 0.2, 10),
            (vec![1.0], 0.1, 0),
            (vec![1.0], f64::NAN, 10),
        ] {
            assert_eq!(
                allocate(rates.clone(), lambda, batch).unwrap_err(),
                validate(&rates, lambda, batch).unwrap_err()
            );
        }
    }
}
