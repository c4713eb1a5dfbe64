//! Two exported functions, `encode` and `decode`, over a static buffer: the share-link
//! pipeline (JSON text in, base64url out, and back) with or without a compression step.
//! The app already ships serde_json; base64 comes with leptos. What differs between the
//! builds is only the compression code.
#![allow(clippy::missing_safety_doc)]

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

static mut BUFFER: [u8; 1 << 20] = [0; 1 << 20];
const LIMIT: usize = 1 << 20;

fn input(len: usize) -> Vec<u8> {
    // SAFETY: single-threaded wasm; the host writes `len` bytes before calling.
    let buffer = unsafe { &*std::ptr::addr_of!(BUFFER) };
    buffer[..len.min(LIMIT)].to_vec()
}

fn output(bytes: &[u8]) -> usize {
    let buffer = unsafe { &mut *std::ptr::addr_of_mut!(BUFFER) };
    let len = bytes.len().min(LIMIT);
    buffer[..len].copy_from_slice(&bytes[..len]);
    len
}

#[no_mangle]
pub extern "C" fn buffer() -> *mut u8 {
    std::ptr::addr_of_mut!(BUFFER).cast()
}

#[cfg(feature = "deflate")]
fn pack(json: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(json, 9)
}

#[cfg(feature = "deflate")]
fn unpack(data: &[u8]) -> Option<Vec<u8>> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(data, LIMIT).ok()
}

#[cfg(feature = "varint")]
mod varint;

#[cfg(feature = "varint")]
fn pack(json: &[u8]) -> Vec<u8> {
    varint::pack(json)
}

#[cfg(feature = "varint")]
fn unpack(data: &[u8]) -> Option<Vec<u8>> {
    varint::unpack(data)
}

#[cfg(not(any(feature = "deflate", feature = "varint")))]
fn pack(json: &[u8]) -> Vec<u8> {
    json.to_vec()
}

#[cfg(not(any(feature = "deflate", feature = "varint")))]
fn unpack(data: &[u8]) -> Option<Vec<u8>> {
    Some(data.to_vec())
}

/// JSON (checked by serde_json, as the app's decode does) → packed → base64url.
#[no_mangle]
pub extern "C" fn encode(len: usize) -> usize {
    let json = input(len);
    if serde_json::from_slice::<serde_json::Value>(&json).is_err() {
        return 0;
    }
    output(URL_SAFE_NO_PAD.encode(pack(&json)).as_bytes())
}

/// base64url → unpacked (bounded) → JSON parsed and written again (every build parses and
/// writes JSON values, so the varint build's use of them costs nothing extra).
#[no_mangle]
pub extern "C" fn decode(len: usize) -> usize {
    let text = input(len);
    let Ok(packed) = URL_SAFE_NO_PAD.decode(&text) else { return 0 };
    let Some(json) = unpack(&packed) else { return 0 };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&json) else { return 0 };
    let Ok(json) = serde_json::to_vec(&value) else { return 0 };
    output(&json)
}
