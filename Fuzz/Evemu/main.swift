// libFuzzer driver: built and run by tools/fuzz.sh Evemu; the work is in InputDevicesFuzzEntryPoints.evemu.
/// libFuzzer's entry point: one input, through the same code the regression tests replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    InputDevicesFuzzEntryPoints.evemu(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
