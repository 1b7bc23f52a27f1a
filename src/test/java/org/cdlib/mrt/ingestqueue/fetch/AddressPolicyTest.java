package org.cdlib.mrt.ingestqueue.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.api.io.TempDir;

/** The address rules, the allow-list, and strict UTF-8 for fetched manifests. */
class AddressPolicyTest {
    @TempDir
    Path home;

    static String rule(String address) throws Exception {
        return AddressPolicy.rule(InetAddress.getByName(address));
    }

    @Test
    void forbiddenRangesAreNamedAndPublicAddressesPass() throws Exception {
        assertTrue(rule("127.0.0.1").startsWith("a loopback address"));
        assertTrue(rule("::1").startsWith("a loopback address"));
        assertTrue(rule("169.254.169.254").startsWith("a link-local address"));
        assertTrue(rule("fe80::1").startsWith("a link-local address"));
        for (String p : new String[] {
            "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "fd00::1", "fc00::5"
        }) {
            assertTrue(rule(p).startsWith("a private address"), p);
        }
        assertTrue(rule("224.0.0.1").startsWith("a multicast address"));
        assertTrue(rule("ff02::1").startsWith("a multicast address"));
        assertTrue(rule("0.0.0.0").startsWith("an unspecified address"));
        assertTrue(rule("::").startsWith("an unspecified address"));
        assertTrue(rule("255.255.255.255").startsWith("the broadcast address"));
        assertTrue(
                rule("::ffff:169.254.169.254").startsWith("a link-local address"),
                "an IPv4-mapped address is its IPv4 address");
        assertTrue(rule("198.18.0.1").startsWith("a benchmarking address"));
        assertTrue(rule("198.19.255.254").startsWith("a benchmarking address"));
        assertNull(rule("198.20.0.1"));
        assertTrue(rule("240.0.0.1").startsWith("a reserved address"));
        assertTrue(rule("255.255.255.254").startsWith("a reserved address"));
        for (String carrier : List.of("::ffff:", "::", "64:ff9b::")) {
            assertTrue(rule(carrier + "198.18.3.4").startsWith("a benchmarking address"), carrier);
            assertTrue(rule(carrier + "240.1.2.3").startsWith("a reserved address"), carrier);
        }
        assertTrue(rule("64:ff9b::a9fe:a9fe").startsWith("a link-local address"), "NAT64 to 169.254.169.254");
        assertTrue(rule("64:ff9b::7f00:1").startsWith("a loopback address"), "NAT64 to 127.0.0.1");
        assertTrue(rule("64:ff9b::10.0.0.1").startsWith("a private address"));
        assertNull(rule("64:ff9b::93.184.216.34"), "NAT64 to a public server (DNS64) is fetched");
        assertTrue(rule("64:ff9b:1::1").startsWith("a local-use NAT64 address"));
        assertTrue(rule("2002:7f00:1::").startsWith("a loopback address")
                && rule("2002:7f00:1::").endsWith("(6to4, 2002::/16)"));
        assertTrue(rule("2002:a9fe:a9fe::1").startsWith("a link-local address"));
        assertTrue(rule("2002:c612:1::").startsWith("a benchmarking address"));
        assertTrue(rule("2002:f000:1::").startsWith("a reserved address"));
        assertNull(rule("2002:5db8:d822::1"), "6to4 of a public address");
        assertNull(rule("93.184.216.34"));
        assertNull(rule("172.32.0.1"));
        assertNull(rule("2606:4700::1111"));
    }

    @Test
    void theAllowListTakesCidrsAddressesAndNames() throws Exception {
        AddressPolicy p = AddressPolicy.parse("10.20.0.0/16, 192.168.1.5, storage.internal");
        p.checkConnect("x", new InetSocketAddress(InetAddress.getByName("10.20.3.4"), 80));
        p.checkConnect("x", new InetSocketAddress(InetAddress.getByName("192.168.1.5"), 80));
        p.checkConnect("storage.internal", new InetSocketAddress(InetAddress.getByName("10.9.9.9"), 80));
        var e = assertThrows(AddressPolicy.RefusedAddressException.class,
                () -> p.checkConnect("x", new InetSocketAddress(InetAddress.getByName("10.21.0.1"), 80)));
        assertEquals(
                "refused: x is 10.21.0.1, a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, "
                        + "fc00::/7); such addresses are not fetched unless listed in ingest.fetch.allow",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AddressPolicy.parse("10.0.0.0/40"));
        assertThrows(IllegalArgumentException.class, () -> AddressPolicy.parse("not a host!"));
    }

    @Test
    void urlsWithForbiddenLiteralsAreRefusedByTheUrlPolicyNamingTheUrl() {
        UrlPolicy strict = new UrlPolicy(home, false);
        FetchException e =
                assertThrows(FetchException.class, () -> strict.check("http://169.254.169.254/latest/meta-data/"));
        assertTrue(e.getMessage().startsWith("http://169.254.169.254/latest/meta-data/: refused: "), e.getMessage());
        assertThrows(FetchException.class, () -> strict.check("http://[fd12::1]:8080/x"));
        UrlPolicy open = new UrlPolicy(home, false, AddressPolicy.parse("169.254.0.0/16"));
        assertTrue(assertDoesNotThrow(() -> open.check("http://169.254.169.254/x"))
                .toString()
                .startsWith("http://169.254"));
    }

    private static <T> T assertDoesNotThrow(ThrowingSupplier<T> s) {
        return Assertions.assertDoesNotThrow(s);
    }

    @Test
    void aFetchedManifestThatIsNotUtf8IsRefusedNamingTheLine() throws Exception {
        byte[] bytes = "#%checkm_0.7\nhttp://x/a | | | | | caf\u00e9.txt\nhttp://x/b | | | | | caf"
                .getBytes(StandardCharsets.UTF_8);
        byte[] bad = new byte[bytes.length + 5];
        System.arraycopy(bytes, 0, bad, 0, bytes.length);
        bad[bytes.length] = (byte) 0xe9; // Latin-1 é
        System.arraycopy(".txt".getBytes(StandardCharsets.US_ASCII), 0, bad, bytes.length + 1, 4);
        FetchException e = assertThrows(FetchException.class, () -> Fetcher.utf8(URI.create("http://x/m.checkm"), bad));
        assertTrue(e.getMessage().startsWith("http://x/m.checkm: line 3 is not UTF-8 text"), e.getMessage());
        assertEquals(new String(bytes, StandardCharsets.UTF_8), Fetcher.utf8(URI.create("http://x/m"), bytes));
    }
}
