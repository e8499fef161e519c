/// Elements a value holds, recursively, private stored properties included (through reflection):
/// the element count of every collection inside it plus the capacity of its Double arrays. Memory
/// tests compare it after short and long streams: a stage whose state grows with the input shows it.
public func heldElements(_ value: Any) -> Int {
    let mirror = Mirror(reflecting: value)
    var total = 0
    if [.collection, .set, .dictionary].contains(mirror.displayStyle) { total += mirror.children.count }
    if let doubles = value as? [Double] { total += doubles.capacity }
    return mirror.children.reduce(total) { $0 + heldElements($1.value) }
}
