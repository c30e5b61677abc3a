// libFuzzer driver: built and run by tools/fuzz.sh InputEvents; the work is in InputDevicesFuzzEntryPoints.inputEvents.
/// libFuzzer's entry point: one input, through the same code the regression tests replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    InputDevicesFuzzEntryPoints.inputEvents(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
