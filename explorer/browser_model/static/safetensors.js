// Reads a .safetensors file (8-byte little-endian header length, a JSON header, then the raw tensors) into typed
// arrays, and turns the checkpoint's int8 matrices back into float32 exactly as model/checkpoint.py's dequantize
// does: w = float32(int8) * float32 scale of its row.

const DTYPES = { F32: Float32Array, I8: Int8Array, I64: BigInt64Array, F64: Float64Array, I32: Int32Array };
const SCALE = ".int8_scale";

export function readSafetensors(buffer) {
  const bytes = buffer instanceof ArrayBuffer ? buffer : buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  const n = Number(new DataView(bytes).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 8, n)));
  const base = 8 + n, tensors = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const Type = DTYPES[info.dtype];
    if (!Type) throw new Error(`${name}: dtype ${info.dtype} is not read here`);
    const [a, b] = info.data_offsets;
    // a copy, so each array is aligned to its element size whatever the offset in the file
    const data = new Type(bytes.slice(base + a, base + b));
    tensors[name] = { shape: info.shape, data };
  }
  return tensors;
}

// int8 matrix + per-row scale -> float32; every other tensor as float32
export function dequantize(tensors) {
  const out = {};
  for (const [name, t] of Object.entries(tensors)) {
    if (name.endsWith(SCALE)) continue;
    if (t.data instanceof Int8Array) {
      const s = tensors[name + SCALE];
      if (!s) throw new Error(`int8 tensor ${name} has no ${name + SCALE}`);
      const [rows, cols] = t.shape, w = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        const sr = s.data[r];
        for (let c = 0; c < cols; c++) w[r * cols + c] = t.data[r * cols + c] * sr;  // rounded to float32 on store
      }
      out[name] = { shape: t.shape, data: w };
    } else {
      out[name] = { shape: t.shape, data: Float32Array.from(t.data) };
    }
  }
  return out;
}
