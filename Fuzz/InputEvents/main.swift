// libFuzzer driver: built and run by tools/fuzz.sh InputEvents; the work is in InputDevicesFuzzEntryPoints.inputEvents.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    InputDevicesFuzzEntryPoints.inputEvents(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
