package org.cdlib.mrt.ingestqueue.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Columns padded to their widest cell. */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    void row(String... cells) {
        rows.add(cells);
    }

    void print(PrintStream out) {
        int[] w = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                w[i] = Math.max(w[i], r[i] == null ? 0 : Math.min(80, r[i].length()));
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                String c = r[i] == null ? "" : r[i].length() > 80 ? r[i].substring(0, 77) + "..." : r[i];
                b.append(i == 0 ? "" : "  ")
                        .append(i == r.length - 1 ? c : String.format("%-" + Math.max(1, w[i]) + "s", c));
            }
            out.println(b.toString().stripTrailing());
        }
    }
}
