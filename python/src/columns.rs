//! Per-job columns as raw little-endian buffers with Arrow validity bitmaps, one `bytes` per
//! column: pyarrow wraps them (`pa.Array.from_buffers`) without a Python object per row,
//! and pandas and polars are made from the Arrow table. 243k jobs are a few memcpy.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use gridscope::engine::SimTime;

enum Data {
    Fixed(Vec<u8>),
    /// Dictionary-encoded strings: i32 codes into `names`.
    Dict(Vec<u8>, Vec<String>),
}

struct Column {
    name: &'static str,
    /// The Arrow type: `u64`, `i64`, `u32`, `i32`, `f64`, `bool` (one byte each, converted in
    /// Python) or `dict` (strings).
    kind: &'static str,
    data: Data,
    /// Arrow validity bitmap (bit set = valid), only when some value is missing.
    validity: Option<Vec<u8>>,
    nulls: usize,
}

#[derive(Default)]
pub(crate) struct Columns {
    cols: Vec<Column>,
}

impl Columns {
    fn fixed(&mut self, name: &'static str, kind: &'static str, data: Vec<u8>) {
        self.cols.push(Column {
            name,
            kind,
            data: Data::Fixed(data),
            validity: None,
            nulls: 0,
        });
    }

    /// Job ids: SWF job numbers may be negative and are kept as read.
    pub(crate) fn i64(&mut self, name: &'static str, it: impl Iterator<Item = i64>) {
        self.fixed(name, "i64", it.flat_map(i64::to_le_bytes).collect());
    }

    pub(crate) fn u32(&mut self, name: &'static str, it: impl Iterator<Item = u32>) {
        self.fixed(name, "u32", it.flat_map(u32::to_le_bytes).collect());
    }

    pub(crate) fn i32(&mut self, name: &'static str, it: impl Iterator<Item = i32>) {
        self.fixed(name, "i32", it.flat_map(i32::to_le_bytes).collect());
    }

    pub(crate) fn bool(&mut self, name: &'static str, it: impl Iterator<Item = bool>) {
        self.fixed(name, "bool", it.map(u8::from).collect());
    }

    /// Times in seconds (f64; exact for whole milliseconds up to 2^53 ms); `None` is null
    /// (a job that never started has no start).
    pub(crate) fn secs(&mut self, name: &'static str, it: impl Iterator<Item = Option<SimTime>>) {
        self.f64(name, it.map(|t| t.map(|t| t.0 as f64 / 1000.0)));
    }

    pub(crate) fn f64(&mut self, name: &'static str, it: impl Iterator<Item = Option<f64>>) {
        let mut data = Vec::new();
        let mut bits = Vec::new();
        let mut nulls = 0;
        for (i, v) in it.enumerate() {
            if i % 8 == 0 {
                bits.push(0u8);
            }
            match v {
                Some(x) => {
                    data.extend_from_slice(&x.to_le_bytes());
                    let last = bits.len() - 1;
                    bits[last] |= 1 << (i % 8);
                }
                None => {
                    data.extend_from_slice(&0f64.to_le_bytes());
                    nulls += 1;
                }
            }
        }
        self.cols.push(Column {
            name,
            kind: "f64",
            data: Data::Fixed(data),
            validity: (nulls > 0).then_some(bits),
            nulls,
        });
    }

    /// Strings drawn from a few names (sites, statuses), as codes into `names`.
    pub(crate) fn dict(
        &mut self,
        name: &'static str,
        names: Vec<String>,
        codes: impl Iterator<Item = i32>,
    ) {
        self.cols.push(Column {
            name,
            kind: "dict",
            data: Data::Dict(codes.flat_map(i32::to_le_bytes).collect(), names),
            validity: None,
            nulls: 0,
        });
    }

    /// `{name: (kind, data bytes, validity bytes or None, null count, dictionary or None)}`,
    /// in column order (dicts keep insertion order).
    pub(crate) fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        for c in self.cols {
            let validity = c.validity.map(|v| PyBytes::new(py, &v));
            let (data, names) = match c.data {
                Data::Fixed(b) => (PyBytes::new(py, &b), None),
                Data::Dict(b, names) => (PyBytes::new(py, &b), Some(PyList::new(py, names)?)),
            };
            d.set_item(c.name, (c.kind, data, validity, c.nulls, names))?;
        }
        Ok(d)
    }
}
