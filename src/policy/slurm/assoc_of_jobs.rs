//! Which association each job's usage is charged to. Slurm charges an *association*, an
//! (account, user) pair, not a user: a user in two accounts has two usages, each ranked
//! under its own account by Fair Tree. A job runs under the account its record names
//! (sacct's `Account`, SWF's group, field 13) when the association tree holds the job's
//! user there; else under the user's first account in the tree (Slurm's `DefaultAccount`
//! stands in for a job that names none); a user the tree lacks sits under `root`.

use std::collections::BTreeMap;

use super::AccountShares;
use crate::model::Job;

/// A job's account that is none of the tree's (a user the tree lacks).
pub const NO_ACCOUNT: u32 = u32::MAX;

/// Each job's association, densely numbered, for a run whose configuration has an account
/// tree. Empty (the default) when it has none: each job's association is then its user.
#[derive(Clone, Debug, Default)]
pub struct AssocOfJobs {
    /// Each job's association (an index into `keys`).
    of: Vec<u32>,
    /// Each association's (user number, account index into the configuration's `accounts`
    /// or [`NO_ACCOUNT`]), sorted: by user first, so that with one association per user
    /// the associations are numbered as the users are (and every sum over them is in the
    /// order it was before jobs carried accounts).
    keys: Vec<(i32, u32)>,
    /// Jobs that name an account the tree does not hold their user in (they run under the
    /// user's first account).
    pub misplaced: u64,
    /// Jobs that run under an account they name that is not their user's first.
    pub second_accounts: u64,
}

impl AssocOfJobs {
    /// `job_accounts[i]` is job i's account number (-1: none; empty: no job names one),
    /// `names[n]` the name of number n (empty: the numbers are the names, as in SWF).
    pub fn new(
        accounts: &[AccountShares],
        jobs: &[Job],
        job_accounts: &[i32],
        names: &[String],
    ) -> AssocOfJobs {
        if accounts.is_empty() {
            return AssocOfJobs::default();
        }
        let index: BTreeMap<&str, u32> = accounts
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.as_str(), i as u32))
            .collect();
        // Each user's accounts, in the tree's order.
        let mut homes: BTreeMap<i32, Vec<u32>> = BTreeMap::new();
        for (i, a) in accounts.iter().enumerate() {
            for u in &a.users {
                homes.entry(u.user).or_default().push(i as u32);
            }
        }
        let named = |i: usize| -> Option<Option<u32>> {
            let a = job_accounts.get(i).copied().filter(|&a| a >= 0)?;
            let found = match names.is_empty() {
                true => index.get(a.to_string().as_str()).copied(),
                false => names
                    .get(a as usize)
                    .and_then(|n| index.get(n.as_str()).copied()),
            };
            Some(found)
        };
        let (mut misplaced, mut second_accounts) = (0, 0);
        let per_job: Vec<(i32, u32)> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let listed = homes.get(&j.user).map(Vec::as_slice).unwrap_or(&[]);
                let first = listed.first().copied().unwrap_or(NO_ACCOUNT);
                let account = match named(i) {
                    None => first,
                    Some(Some(a)) if listed.contains(&a) => {
                        second_accounts += u64::from(a != first);
                        a
                    }
                    Some(_) => {
                        misplaced += 1;
                        first
                    }
                };
                (j.user, account)
            })
            .collect();
        let mut keys = per_job.clone();
        keys.sort_unstable();
        keys.dedup();
        let of = per_job
            .iter()
            .map(|k| keys.binary_search(k).unwrap_or(0) as u32)
            .collect();
        AssocOfJobs {
            of,
            keys,
            misplaced,
            second_accounts,
        }
    }

    /// True when each job's association is its user.
    pub fn is_by_user(&self) -> bool {
        self.keys.is_empty()
    }

    /// Job `i`'s association.
    pub fn get(&self, i: usize) -> Option<u32> {
        self.of.get(i).copied()
    }

    /// The associations: (user number, account index or [`NO_ACCOUNT`]), by dense index.
    pub fn keys(&self) -> &[(i32, u32)] {
        &self.keys
    }

    /// The dense index of `user`'s association under account `account`, if a job runs there.
    pub fn find(&self, account: u32, user: i32) -> Option<usize> {
        self.keys.binary_search(&(user, account)).ok()
    }

    /// Notes for the user: jobs moved to their user's first account, jobs under a second
    /// account.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.second_accounts > 0 {
            notes.push(format!(
                "{} job(s) run under an account other than the first the tree lists for their user: each (account, user) association has its own usage",
                self.second_accounts
            ));
        }
        if self.misplaced > 0 {
            notes.push(format!(
                "{} job(s) name an account the association tree does not hold their user in: they run under the user's first account (Slurm would refuse them)",
                self.misplaced
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::slurm::fair_tree::tests::account;

    fn job(user: i32) -> Job {
        Job {
            id: 1,
            submit: crate::time::SimTime::ZERO,
            runtime: crate::time::SimTime(1),
            estimate: crate::time::SimTime(1),
            procs: 1,
            home: 0,
            user,
            partition: -1,
        }
    }

    #[test]
    fn jobs_run_under_the_account_they_name_when_their_user_is_there() {
        let tree = vec![
            account("root", "", 1, &[]),
            account("phys", "root", 2, &[(1, 1), (2, 1)]),
            account("chem", "root", 1, &[(1, 3)]),
        ];
        let jobs = [job(1), job(1), job(1), job(2), job(2), job(3)];
        let names: Vec<String> = ["chem", "phys", "bio"].map(String::from).to_vec();
        // user 1: chem, none (→ phys, the first), bio (not in the tree → phys);
        // user 2: chem (not there → phys), phys; user 3: under no account.
        let of = AssocOfJobs::new(&tree, &jobs, &[0, -1, 2, 0, 1, -1], &names);
        assert_eq!(of.keys(), &[(1, 1), (1, 2), (2, 1), (3, NO_ACCOUNT)]);
        let got: Vec<_> = (0..6).map(|i| of.get(i).unwrap()).collect();
        assert_eq!(got, vec![1, 0, 0, 2, 2, 3]);
        assert_eq!((of.misplaced, of.second_accounts), (2, 1));
        assert_eq!(of.find(2, 1), Some(1));
        assert_eq!(of.notes().len(), 2);
        // SWF: the group's number is the account's name.
        let swf = vec![
            account("root", "", 1, &[]),
            account("7", "root", 1, &[(1, 1)]),
            account("8", "root", 1, &[(1, 1)]),
        ];
        let of = AssocOfJobs::new(&swf, &[job(1), job(1)], &[8, 7], &[]);
        assert_eq!(of.keys(), &[(1, 1), (1, 2)]);
        assert_eq!((of.get(0), of.get(1)), (Some(1), Some(0)));
        // No tree: by user.
        assert!(AssocOfJobs::new(&[], &jobs, &[], &[]).is_by_user());
    }
}
