package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SafeNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"..", "../a", "a/../../b", "a/..", "/etc/passwd", "/", "C:/x", "c:x", "a\\b", "..\\x",
            "a\u0000b", "a\nb", "a\u007fb", "", "   ", ".", "./", "//"})
    void namesThatCouldEscapeOrNameNothingAreRefused(String name) {
        FetchException e = assertThrows(FetchException.class, () -> SafeName.resolve(Path.of("/work/producer"), name));
        assertTrue(e.getMessage().contains("file name") || e.getMessage().contains("empty"), e.getMessage());
    }

    @Test
    void plainRelativeNamesAreKeptAndDotSegmentsDropped() throws FetchException {
        assertEquals("a.txt", SafeName.check("a.txt"));
        assertEquals("dir/sub/a b.txt", SafeName.check("./dir//sub/./a b.txt"));
        assertEquals("..hidden/...", SafeName.check("..hidden/..."));
        assertEquals(Path.of("/work/producer/dir/a.txt"), SafeName.resolve(Path.of("/work/producer"), "dir/a.txt"));
    }

    @Test
    void theMessageNamesTheBadName() {
        FetchException e = assertThrows(FetchException.class, () -> SafeName.check("x/../../y"));
        assertEquals("file name 'x/../../y' escapes the working directory ('..')", e.getMessage());
        e = assertThrows(FetchException.class, () -> SafeName.check("a\u0001b"));
        assertEquals("file name 'a\\u0001b' contains a control character", e.getMessage());
    }
}
