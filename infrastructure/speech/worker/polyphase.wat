;; The inner loop of the resampler (resample-stage.ts), in WebAssembly with 128-bit SIMD: one output
;; sample is a dot product of one phase of the filter with the input under it, four products at a time.
;; Plain JavaScript does one product at a time; this does the same sums about four times faster.
;;
;; polyphase-kernel.ts holds this module assembled. After changing this file, assemble it again
;; (wat2wasm is in Debian's `wabt` package):
;;   wat2wasm infrastructure/speech/worker/polyphase.wat --output=- | base64 --wrap=0
;; and paste the result into polyphase-kernel.ts.
(module
  (import "resampler" "memory" (memory 1))

  ;; Writes output samples (16-bit) while the filter fits in the input, at most `capacity`; returns
  ;; how many. `coefficients` holds `up` phases of `taps` floats each (taps a multiple of 8); `input`
  ;; holds `length` float samples. `state` holds two int32s, updated: the phase of the next output and
  ;; the input sample its filter starts at. Each output moves the phase on by `down`; each time the
  ;; phase passes `up`, the filter starts one input sample later.
  (func (export "resample")
    (param $state i32) (param $coefficients i32) (param $taps i32) (param $up i32) (param $down i32)
    (param $input i32) (param $length i32) (param $output i32) (param $capacity i32)
    (result i32)
    (local $phase i32) (local $start i32) (local $produced i32)
    (local $c i32) (local $x i32) (local $end i32)
    (local $even v128) (local $odd v128) (local $sum f32)
    (local.set $phase (i32.load (local.get $state)))
    (local.set $start (i32.load offset=4 (local.get $state)))
    (block $done
      (loop $next_output
        (br_if $done (i32.ge_u (local.get $produced) (local.get $capacity)))
        (br_if $done (i32.gt_u (i32.add (local.get $start) (local.get $taps)) (local.get $length)))
        ;; Two sums of four lanes each, so that an addition need not wait for the one before it.
        (local.set $c
          (i32.add (local.get $coefficients) (i32.shl (i32.mul (local.get $phase) (local.get $taps)) (i32.const 2))))
        (local.set $x (i32.add (local.get $input) (i32.shl (local.get $start) (i32.const 2))))
        (local.set $end (i32.add (local.get $x) (i32.shl (local.get $taps) (i32.const 2))))
        (local.set $even (v128.const f32x4 0 0 0 0))
        (local.set $odd (v128.const f32x4 0 0 0 0))
        (loop $next_taps
          (local.set $even
            (f32x4.add (local.get $even) (f32x4.mul (v128.load (local.get $c)) (v128.load (local.get $x)))))
          (local.set $odd
            (f32x4.add (local.get $odd)
              (f32x4.mul (v128.load offset=16 (local.get $c)) (v128.load offset=16 (local.get $x)))))
          (local.set $c (i32.add (local.get $c) (i32.const 32)))
          (local.set $x (i32.add (local.get $x) (i32.const 32)))
          (br_if $next_taps (i32.lt_u (local.get $x) (local.get $end))))
        (local.set $even (f32x4.add (local.get $even) (local.get $odd)))
        (local.set $sum
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $even)) (f32x4.extract_lane 1 (local.get $even)))
            (f32.add (f32x4.extract_lane 2 (local.get $even)) (f32x4.extract_lane 3 (local.get $even)))))
        ;; Clipped to 16 bits and rounded to the nearest integer (ties to even).
        (i32.store16
          (i32.add (local.get $output) (i32.shl (local.get $produced) (i32.const 1)))
          (i32.trunc_sat_f32_s
            (f32.nearest (f32.min (f32.max (local.get $sum) (f32.const -32768)) (f32.const 32767)))))
        (local.set $produced (i32.add (local.get $produced) (i32.const 1)))
        (local.set $phase (i32.add (local.get $phase) (local.get $down)))
        ;; A subtraction per input sample passed: cheaper than a division per output.
        (block $phase_in_range
          (loop $next_input
            (br_if $phase_in_range (i32.lt_u (local.get $phase) (local.get $up)))
            (local.set $phase (i32.sub (local.get $phase) (local.get $up)))
            (local.set $start (i32.add (local.get $start) (i32.const 1)))
            (br $next_input)))
        (br $next_output)))
    (i32.store (local.get $state) (local.get $phase))
    (i32.store offset=4 (local.get $state) (local.get $start))
    (local.get $produced))
)
