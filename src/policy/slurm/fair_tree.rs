//! Fair Tree over accounts (Slurm 22.05's `fair_tree.c`: `_apply_priority_fs`,
//! `_calc_tree_fs`, `_calc_assoc_fs`, `_cmp_level_fs`; slurm.schedmd.com `fair_tree.html`).
//!
//! From the root down, the children of an account (its sub-accounts and user associations)
//! each get a level fair share LF = S / U: S its raw shares over its siblings', U its usage
//! over its parent's (0 when the parent has used nothing, so LF = ∞; S = 0 gives LF = 0).
//! They are walked from the highest LF down, a user before an account at equal LF; a user
//! takes the current rank, an account is walked into at once. The rank starts at the number
//! of user associations and counts down by one per user; a user whose LF equals the
//! previous sibling's keeps the rank (a tie), and so does the first child of an account
//! tied with the one before it. A user's factor is rank / user associations.
//!
//! Slurm's `_count_tied_accounts` breaks at the first sibling that is an account, so tied
//! accounts are never merged into one walk: each is walked in turn, the second starting
//! tied. That is what is done here. Siblings that tie keep the order of the dump (glibc's
//! `qsort` is a merge sort, stable, for arrays this small).

use std::cell::Cell;

use super::AccountShares;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Child {
    Account(usize),
    /// A workload user, by dense index.
    User(usize),
    /// A user association that runs no job here.
    Idle,
}

impl Child {
    fn is_user(self) -> bool {
        !matches!(self, Child::Account(_))
    }
}

/// The association tree, with the workload's users at their places.
#[derive(Clone, Debug)]
pub(super) struct AccountTree {
    /// Each account's children with their raw shares; 0 is `root`.
    children: Vec<Vec<(Child, u32)>>,
    /// User associations in the tree: every rank's denominator.
    user_assocs: usize,
}

impl AccountTree {
    /// The tree of a checked configuration (`accounts`, `root` first; see
    /// `SlurmConfig::check`), with `dense(account, user)` the dense index of the
    /// association of a user's number under the account at that index (`None`: no job runs
    /// there). A workload association the tree lacks sits under `root` with 1 share.
    /// `None` for an empty tree.
    pub(super) fn new(
        accounts: &[AccountShares],
        dense: impl Fn(usize, i32) -> Option<usize>,
        users: usize,
    ) -> Option<AccountTree> {
        if accounts.first().is_none_or(|a| a.name != "root") {
            return None;
        }
        let index: std::collections::BTreeMap<&str, usize> = accounts
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.as_str(), i))
            .collect();
        let mut children: Vec<Vec<(Child, u32)>> = vec![Vec::new(); accounts.len()];
        for (i, a) in accounts.iter().enumerate().skip(1) {
            let parent = *index.get(a.parent.as_str())?;
            children[parent].push((Child::Account(i), a.shares));
        }
        let mut placed = vec![false; users];
        for (i, a) in accounts.iter().enumerate() {
            for u in &a.users {
                match dense(i, u.user).filter(|&d| d < users && !placed[d]) {
                    Some(d) => {
                        placed[d] = true;
                        children[i].push((Child::User(d), u.shares));
                    }
                    None => children[i].push((Child::Idle, u.shares)),
                }
            }
            children[i].extend(a.idle_users.iter().map(|&s| (Child::Idle, s)));
        }
        for (d, _) in placed.iter().enumerate().filter(|(_, p)| !**p) {
            children[0].push((Child::User(d), 1));
        }
        let user_assocs = children
            .iter()
            .flatten()
            .filter(|(c, _)| c.is_user())
            .count();
        Some(AccountTree {
            children,
            user_assocs,
        })
    }

    /// Sets `factor[u]` for every workload user from the users' decayed `usage`.
    pub(super) fn rank(&self, usage: &[f64], factor: &[Cell<f64>]) {
        let mut account_usage = vec![0.0f64; self.children.len()];
        self.sum(0, usage, &mut account_usage, 0);
        let mut walk = Walk {
            rank: self.user_assocs,
            rnt: self.user_assocs,
            n: self.user_assocs.max(1) as f64,
        };
        self.visit(0, false, usage, &account_usage, factor, &mut walk, 0);
    }

    fn usage_of(child: Child, usage: &[f64], account_usage: &[f64]) -> f64 {
        match child {
            Child::Account(a) => account_usage[a],
            Child::User(u) => usage.get(u).copied().unwrap_or(0.0),
            Child::Idle => 0.0,
        }
    }

    /// Account `a`'s usage: its users' and sub-accounts', summed in a fixed order.
    fn sum(&self, a: usize, usage: &[f64], account_usage: &mut [f64], depth: usize) -> f64 {
        let mut total = 0.0;
        for &(child, _) in &self.children[a] {
            total += match child {
                // The configuration's check bounds the depth; this guards a hand-built one.
                Child::Account(c) if depth < super::MAX_ACCOUNT_DEPTH => {
                    self.sum(c, usage, account_usage, depth + 1)
                }
                other => Self::usage_of(other, usage, account_usage),
            };
        }
        account_usage[a] = total;
        total
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &self,
        a: usize,
        account_tied: bool,
        usage: &[f64],
        account_usage: &[f64],
        factor: &[Cell<f64>],
        walk: &mut Walk,
        depth: usize,
    ) {
        let siblings = &self.children[a];
        let total_shares: u64 = siblings.iter().map(|&(_, s)| s as u64).sum();
        let parent_usage = account_usage[a];
        let mut level: Vec<(f64, Child)> = siblings
            .iter()
            .map(|&(child, shares)| {
                let s = if total_shares == 0 {
                    0.0
                } else {
                    shares as f64 / total_shares as f64
                };
                let u = if parent_usage > 0.0 {
                    Self::usage_of(child, usage, account_usage) / parent_usage
                } else {
                    0.0
                };
                let lf = if s == 0.0 { 0.0 } else { s / u };
                (lf, child)
            })
            .collect();
        // Highest LF first; at equal LF a user before an account; otherwise dump order.
        level.sort_by(|x, y| {
            y.0.total_cmp(&x.0)
                .then_with(|| y.1.is_user().cmp(&x.1.is_user()))
        });
        let mut prev: Option<f64> = None;
        for (i, &(lf, child)) in level.iter().enumerate() {
            let tied = if i == 0 && account_tied {
                true
            } else {
                prev == Some(lf)
            };
            match child {
                Child::Account(c) => {
                    if depth < super::MAX_ACCOUNT_DEPTH {
                        self.visit(c, tied, usage, account_usage, factor, walk, depth + 1);
                    }
                }
                user => {
                    if !tied {
                        walk.rank = walk.rnt;
                    }
                    if let Child::User(u) = user {
                        if let Some(f) = factor.get(u) {
                            f.set(walk.rank as f64 / walk.n);
                        }
                    }
                    walk.rnt = walk.rnt.saturating_sub(1);
                }
            }
            prev = Some(lf);
        }
    }
}

/// The rank being handed out, and the rank the next untied user takes.
struct Walk {
    rank: usize,
    rnt: usize,
    n: f64,
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::policy::slurm::UserShares;

    /// Account `name` under `parent` with `shares`, holding `users` (number, shares) and
    /// no idle user associations (the association reader's tests use it too).
    pub(in crate::policy::slurm) fn account(
        name: &str,
        parent: &str,
        shares: u32,
        users: &[(i32, u32)],
    ) -> AccountShares {
        AccountShares {
            name: name.into(),
            parent: parent.into(),
            shares,
            users: users
                .iter()
                .map(|&(user, shares)| UserShares { user, shares })
                .collect(),
            idle_users: Vec::new(),
        }
    }

    fn factors(tree: &AccountTree, usage: &[f64]) -> Vec<f64> {
        let f: Vec<Cell<f64>> = usage.iter().map(|_| Cell::new(f64::NAN)).collect();
        tree.rank(usage, &f);
        f.iter().map(Cell::get).collect()
    }

    /// root: phys (3 shares: alice 0, dan 1) and chem (1 share: bob 2), plus the root user
    /// (1 share, idle): four user associations.
    fn phys_chem() -> AccountTree {
        let mut root = account("root", "", 1, &[]);
        root.idle_users.push(1);
        let accounts = [
            root,
            account("phys", "root", 3, &[(0, 1), (1, 1)]),
            account("chem", "root", 1, &[(2, 1)]),
        ];
        AccountTree::new(&accounts, |_, u| Some(u as usize), 3).unwrap()
    }

    #[test]
    fn accounts_are_ranked_before_their_users() {
        let t = phys_chem();
        assert_eq!(t.user_assocs, 4);
        // Nobody has used anything: the root user (∞, a user before the accounts) takes
        // rank 4, phys and chem tie with it at ∞, so everyone keeps rank 4.
        assert_eq!(factors(&t, &[0.0, 0.0, 0.0]), [1.0, 1.0, 1.0]);
        // phys used 90 of 100 (S 3/5 over U 0.9: 0.667), chem 10 (S 1/5 over 0.1: 2):
        // root user (∞) 4, then chem's bob 3, then phys's users: dan (unused, ∞) 2 and
        // alice 1.
        assert_eq!(factors(&t, &[90.0, 0.0, 10.0]), [0.25, 0.5, 0.75]);
    }

    /// Two accounts at equal LF: each is walked in turn, and the second's first user keeps
    /// the rank of the first's last (Slurm never merges them).
    #[test]
    fn tied_accounts_share_a_rank_at_their_seam() {
        let accounts = [
            account("root", "", 1, &[]),
            account("a", "root", 1, &[(0, 1), (1, 1)]),
            account("b", "root", 1, &[(2, 1), (3, 1)]),
        ];
        let t = AccountTree::new(&accounts, |_, u| Some(u as usize), 4).unwrap();
        // a and b used 50 each (tied); within each, users 0 and 2 used 40, 1 and 3 used 10.
        // a: user 1 (LF 0.5/0.2) rank 4, user 0 rank 3; b: user 3 tied-start keeps 3,
        // user 2 rank 1.
        assert_eq!(
            factors(&t, &[40.0, 10.0, 40.0, 10.0]),
            [0.75, 1.0, 0.25, 0.75]
        );
    }

    #[test]
    fn users_the_tree_lacks_sit_under_root() {
        let accounts = [
            account("root", "", 1, &[]),
            account("a", "root", 1, &[(0, 1)]),
        ];
        let t = AccountTree::new(&accounts, |_, u| Some(u as usize), 2).unwrap();
        assert_eq!(t.user_assocs, 2);
        // User 1 (under root, 1 share, used 10 of 20: LF 1) and account a (LF 1) tie: the
        // user first, rank 2; a is tied with it, so its first user keeps rank 2 as well.
        assert_eq!(factors(&t, &[10.0, 10.0]), [1.0, 1.0]);
        // a used less: it ranks first, then user 1 takes rank 1.
        assert_eq!(factors(&t, &[5.0, 15.0]), [1.0, 0.5]);
    }
}
