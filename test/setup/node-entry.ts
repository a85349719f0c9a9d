// The tests run as a Node user of pagelog does: with the package's Node entry loaded, which lets
// `LogDir.open(path)` open an FsStorage (src/node.ts). Without it, the log layer knows no file
// system (test/integration/browser-bundle.test.ts checks that side).
import "../../src/node.js";
