// libFuzzer driver: built and run by tools/fuzz.sh LabelParser; the work is in PunchKitFuzzEntryPoints.labelParser.
/// libFuzzer's entry point: one input, through the same code the regression tests replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    PunchKitFuzzEntryPoints.labelParser(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
