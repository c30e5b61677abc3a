// libFuzzer driver: built and run by tools/fuzz.sh ServerMessages; the work is in FightProtocolFuzzEntryPoints.serverMessages.
/// libFuzzer's entry point: one input, through the same code the regression tests replay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FightProtocolFuzzEntryPoints.serverMessages(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
