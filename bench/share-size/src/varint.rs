//! The hand-written alternative to DEFLATE: the share JSON re-encoded as a compact binary
//! tree in which every array of numbers is a column of zigzag-coded deltas, in tenths,
//! written as LEB128 varints. Generic over the JSON, so it packs what ttft-core's share
//! wire holds.

use serde_json::{Map, Number, Value};

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const TENTHS: u8 = 3;
const FLOAT: u8 = 4;
const STRING: u8 = 5;
const ARRAY: u8 = 6;
const OBJECT: u8 = 7;
const COLUMN: u8 = 8;

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// `value` in tenths when it is exactly a multiple of 0.1 of modest size.
fn tenths(value: f64) -> Option<i64> {
    let scaled = (value * 10.0).round();
    (scaled.abs() < 1e15 && scaled / 10.0 == value).then_some(scaled as i64)
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn put(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(number) => {
            let float = number.as_f64().unwrap_or(0.0);
            match tenths(float) {
                Some(tenths) => {
                    out.push(TENTHS);
                    put_varint(out, zigzag(tenths));
                }
                None => {
                    out.push(FLOAT);
                    out.extend_from_slice(&float.to_le_bytes());
                }
            }
        }
        Value::String(text) => {
            out.push(STRING);
            put_str(out, text);
        }
        Value::Array(items) => {
            let column: Option<Vec<Option<i64>>> = items
                .iter()
                .map(|item| match item {
                    Value::Null => Some(None),
                    Value::Number(number) => number.as_f64().and_then(tenths).map(Some),
                    _ => None,
                })
                .collect();
            match column {
                Some(column) => {
                    out.push(COLUMN);
                    put_varint(out, column.len() as u64);
                    let mut previous = 0;
                    for entry in column {
                        match entry {
                            None => put_varint(out, 0),
                            Some(value) => {
                                put_varint(out, zigzag(value - previous) + 1);
                                previous = value;
                            }
                        }
                    }
                }
                None => {
                    out.push(ARRAY);
                    put_varint(out, items.len() as u64);
                    for item in items {
                        put(out, item);
                    }
                }
            }
        }
        Value::Object(fields) => {
            out.push(OBJECT);
            put_varint(out, fields.len() as u64);
            for (key, item) in fields {
                put_str(out, key);
                put(out, item);
            }
        }
    }
}

pub fn pack(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(value) = serde_json::from_slice::<Value>(json) {
        put(&mut out, &value);
    }
    out
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    budget: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.data.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    /// Counts output against the bound, as the DEFLATE build's inflate limit does.
    fn spend(&mut self, amount: usize) -> Option<()> {
        self.budget = self.budget.checked_sub(amount)?;
        Some(())
    }

    fn string(&mut self) -> Option<String> {
        let len = usize::try_from(self.varint()?).ok()?;
        self.spend(len)?;
        let bytes = self.data.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        String::from_utf8(bytes.to_vec()).ok()
    }

    fn number(tenths: i64) -> Value {
        if tenths % 10 == 0 {
            Value::from(tenths / 10)
        } else {
            Number::from_f64(tenths as f64 / 10.0).map_or(Value::Null, Value::Number)
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > 32 {
            return None;
        }
        self.spend(1)?;
        Some(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            TENTHS => Self::number(unzigzag(self.varint()?)),
            FLOAT => {
                let bytes: [u8; 8] = self.data.get(self.at..self.at + 8)?.try_into().ok()?;
                self.at += 8;
                Number::from_f64(f64::from_le_bytes(bytes)).map_or(Value::Null, Value::Number)
            }
            STRING => Value::String(self.string()?),
            ARRAY => {
                let len = usize::try_from(self.varint()?).ok()?;
                self.spend(len)?;
                let mut items = Vec::new();
                for _ in 0..len {
                    items.push(self.value(depth + 1)?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let len = usize::try_from(self.varint()?).ok()?;
                self.spend(len)?;
                let mut fields = Map::new();
                for _ in 0..len {
                    let key = self.string()?;
                    fields.insert(key, self.value(depth + 1)?);
                }
                Value::Object(fields)
            }
            COLUMN => {
                let len = usize::try_from(self.varint()?).ok()?;
                self.spend(len * 4)?;
                let mut items = Vec::with_capacity(len);
                let mut previous = 0i64;
                for _ in 0..len {
                    match self.varint()? {
                        0 => items.push(Value::Null),
                        coded => {
                            previous = previous.checked_add(unzigzag(coded - 1))?;
                            items.push(Self::number(previous));
                        }
                    }
                }
                Value::Array(items)
            }
            _ => return None,
        })
    }
}

pub fn unpack(data: &[u8]) -> Option<Vec<u8>> {
    let mut reader = Reader {
        data,
        at: 0,
        budget: super::LIMIT,
    };
    let value = reader.value(0)?;
    (reader.at == data.len()).then(|| serde_json::to_vec(&value).ok())?
}
