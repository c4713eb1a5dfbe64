//! Byte searches eight bytes at a time, for the stream reader's two hot loops: the end of an
//! SSE line ([`line_end`]) and the end of the plain run of a JSON string ([`json_plain_len`]).
//!
//! On wasm32 without SIMD, the `memchr` crate's portable search reads a machine word of four
//! bytes at a time; a `u64` is one wasm instruction wide, and these searches read eight.
//! Both use the classic word-at-a-time tests ("Bit Twiddling Hacks", `haszero` and
//! `hasless`): in `(x - n in every byte) & !x & 0x80 in every byte`, a byte below `n`
//! (n ≤ 128) has its high bit set, and a byte equal to `c` is a zero byte of
//! `x ^ c in every byte`. A borrow can also flag a byte above a flagged one, never below the
//! first, so the lowest flag is the exact first match. A leaf module: no import.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` below `n` (n ≤ 128; exact for the lowest flag).
#[inline(always)]
fn below(word: u64, n: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS
}

/// The high bit of each byte of `word` equal to `byte` (exact for the lowest flag).
#[inline(always)]
fn equal(word: u64, byte: u8) -> u64 {
    below(word ^ (ONES * u64::from(byte)), 1)
}

/// The eight bytes at `at`, little-endian (so the lowest flag is the first byte), if there
/// are eight.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let mut eight = [0; 8];
    eight.copy_from_slice(bytes.get(at..at + 8)?);
    Some(u64::from_le_bytes(eight))
}

/// The position of the first CR or LF in `bytes` (`memchr2(b'\r', b'\n', bytes)`).
#[inline(always)]
pub(crate) fn line_end(bytes: &[u8]) -> Option<usize> {
    let mut position = 0;
    while let Some(word) = word_at(bytes, position) {
        let flags = equal(word, b'\r') | equal(word, b'\n');
        if flags != 0 {
            return Some(position + flags.trailing_zeros() as usize / 8);
        }
        position += 8;
    }
    while let Some(&byte) = bytes.get(position) {
        if byte == b'\r' || byte == b'\n' {
            return Some(position);
        }
        position += 1;
    }
    None
}

/// The length of the run of bytes that a JSON string holds as they are: up to a quote, a
/// backslash or a control character (below U+0020), or the end.
#[inline(always)]
pub(crate) fn json_plain_len(bytes: &[u8]) -> usize {
    let mut length = 0;
    while let Some(word) = word_at(bytes, length) {
        let flags = below(word, 0x20) | equal(word, b'"') | equal(word, b'\\');
        if flags != 0 {
            return length + flags.trailing_zeros() as usize / 8;
        }
        length += 8;
    }
    while let Some(&byte) = bytes.get(length) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        length += 1;
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Both searches by their definitions, one byte at a time.
    fn line_end_bytewise(bytes: &[u8]) -> Option<usize> {
        bytes
            .iter()
            .position(|&byte| byte == b'\r' || byte == b'\n')
    }

    fn json_plain_len_bytewise(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
            .unwrap_or(bytes.len())
    }

    #[test]
    fn every_byte_at_every_offset_stops_where_the_byte_search_does() {
        // Every byte value at every offset of two words and a tail, after filler bytes of
        // every kind (ASCII, high bytes that a borrow could disturb, bytes just above the
        // limits) and before the bytes searched for and others.
        for filler in [b'a', 0x20, 0x21, 0x7F, 0x80, 0xC3, 0xFF, 0x0E] {
            for at in 0..19 {
                for byte in 0..=255u8 {
                    for after in [b'"', b'\\', b'\r', b'\n', 0x00, 0x1F, b'a', 0xFF] {
                        let mut bytes = [filler; 21];
                        bytes[at] = byte;
                        bytes[at + 1] = after;
                        for length in [at, at + 1, at + 2, bytes.len()] {
                            let bytes = &bytes[..length];
                            assert_eq!(json_plain_len(bytes), json_plain_len_bytewise(bytes));
                            assert_eq!(line_end(bytes), line_end_bytewise(bytes));
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn any_bytes_stop_where_the_byte_search_does(
            bytes in proptest::collection::vec(
                prop_oneof![
                    any::<u8>(),
                    Just(b'"'),
                    Just(b'\\'),
                    Just(b'\r'),
                    Just(b'\n'),
                    0x20u8..0x7F,
                ],
                0..40,
            ),
        ) {
            prop_assert_eq!(json_plain_len(&bytes), json_plain_len_bytewise(&bytes));
            prop_assert_eq!(line_end(&bytes), line_end_bytewise(&bytes));
        }
    }
}
