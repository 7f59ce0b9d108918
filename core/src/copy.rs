//! Copying a list of plain values into another list's buffer without glibc's slow case.
//!
//! Search bots copy a state from their root at every playout and every try (the nine's
//! expansion slots alone are 2.3 KiB), and simulations copy the set-up's board and graph
//! into every new game. glibc copies a block of 2,112 bytes or more with `rep movsb`,
//! which some processors (AMD Zen 3, and virtual machines on it) run 20 to 30 times slower
//! when the destination sits 8 to 24 bytes past the source modulo 4,096 (the same place in
//! a page, a few bytes on): 0.8 µs instead of 35 ns for 2.3 KiB (`scripts/memcpy_check.py`
//! says whether a machine has it). Where two buffers fall is the allocator's layout, so one
//! configuration paid it at every playout (a tenth of an MCTS decision with the nine and
//! the Tactician, issue 33) and another not, and any change that moved an allocation could
//! flip it. Pieces under the threshold take glibc's vector loop, whatever the alignment.

/// The largest block [`copy_in_pieces`] hands to `memcpy` at once: under glibc's
/// `rep movsb` threshold (2,112 bytes on processors with fast short `rep movsb`).
const COPY_PIECE: usize = 2048;

/// `to.clone_from(from)` for a list of plain values, reusing `to`'s buffer, copied in
/// pieces of at most [`COPY_PIECE`] bytes.
#[inline]
pub(crate) fn copy_in_pieces<T: Copy>(to: &mut Vec<T>, from: &[T]) {
    to.clear();
    to.reserve(from.len());
    for piece in from.chunks((COPY_PIECE / std::mem::size_of::<T>().max(1)).max(1)) {
        to.extend_from_slice(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_length_around_the_piece_size() {
        let mut to = vec![7u64; 3];
        for n in [0, 1, 255, 256, 257, 512, 1000, 4099] {
            let from: Vec<u64> = (0..n as u64).map(|i| i * 31 + 5).collect();
            copy_in_pieces(&mut to, &from);
            assert_eq!(to, from, "length {n}");
        }
        // Zero-sized values: one piece of all of them.
        let mut units = vec![(); 2];
        copy_in_pieces(&mut units, &[(); 5]);
        assert_eq!(units.len(), 5);
    }
}
