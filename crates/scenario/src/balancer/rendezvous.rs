//! Rendezvous (highest-random-weight) hashing: a key goes to the replica whose salted hash
//! of (key, replica) is highest. Removing a replica moves only the keys it held.
//!
//! The hash is FNV-1a over the key's bytes, mixed with the replica and the seed through
//! splitmix64: fixed arithmetic, the same on every platform and in every process (never
//! `std::hash`, whose output is not a contract).

use faultline_model::ReplicaId;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// splitmix64's finalizer (Steele, Lea and Flood), on `x + golden gamma`.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The replica among `0..replicas` that `key` goes to under `seed` (ties: the lowest).
pub fn rendezvous(key: &[u8], seed: u64, replicas: u8) -> ReplicaId {
    rendezvous_among(key, seed, replicas, u16::MAX).unwrap_or(ReplicaId(0))
}

/// The replica among the replicas of `0..replicas` in the bit set `up` that `key` goes
/// to under `seed`; `None` when none is up. A key whose replica is up goes where
/// [`rendezvous`] sends it; the keys of a replica that is down spread over the others.
pub fn rendezvous_among(key: &[u8], seed: u64, replicas: u8, up: u16) -> Option<ReplicaId> {
    let key = fnv1a(key);
    let salt = splitmix64(seed);
    let mut best: Option<(u64, u8)> = None;
    for r in 0..replicas.clamp(1, 16) {
        if up & (1 << r) == 0 {
            continue;
        }
        let weight = splitmix64(key ^ splitmix64(salt ^ u64::from(r)));
        if best.is_none_or(|(w, _)| weight > w) {
            best = Some((weight, r));
        }
    }
    best.map(|(_, r)| ReplicaId(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hashes_are_the_published_functions() {
        // FNV-1a test vectors (Fowler, Noll, Vo): "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        // splitmix64 from state 0: its first output.
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn a_replica_down_moves_only_its_keys() {
        for i in 0..200u32 {
            let key = i.to_be_bytes();
            let home = rendezvous(&key, 9, 3);
            let without_1 = rendezvous_among(&key, 9, 3, 0b101).unwrap();
            assert_ne!(without_1, ReplicaId(1));
            if home != ReplicaId(1) {
                assert_eq!(without_1, home);
            }
        }
        assert_eq!(rendezvous_among(b"k", 9, 3, 0), None);
    }

    #[test]
    fn removing_a_replica_moves_only_its_keys() {
        for i in 0..200u32 {
            let key = i.to_be_bytes();
            let with_four = rendezvous(&key, 5, 4);
            if with_four.0 < 3 {
                assert_eq!(rendezvous(&key, 5, 3), with_four);
            }
        }
    }
}
