package org.cdlib.mrt.ingestqueue.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.cdlib.mrt.ingestqueue.module.QueueModule;

/**
 * The beans a route may name and the class of each, known before anything is bound: what the modules
 * declare ({@link QueueModule#beans()}), the service's own and the beans a caller binds over them.
 */
final class KnownBeans {
    private final Map<String, Class<?>> beans;

    private KnownBeans(Map<String, Class<?>> beans) {
        this.beans = beans;
    }

    /** The modules' declarations, then {@code service}'s, then the classes of {@code bound} (bound over both). */
    static KnownBeans of(Iterable<QueueModule> modules, Map<String, Class<?>> service, Map<String, Object> bound) {
        Map<String, Class<?>> all = new TreeMap<>();
        modules.forEach(m -> all.putAll(m.beans()));
        all.putAll(service);
        bound.forEach((name, bean) -> all.put(name, bean.getClass()));
        return new KnownBeans(all);
    }

    Optional<Class<?>> type(String name) {
        return Optional.ofNullable(beans.get(name));
    }

    Set<String> names() {
        return beans.keySet();
    }

    /** What Camel's bean binding can call by name on a {@code type}: its public methods, Object's left out. */
    static SortedSet<String> methods(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .filter(m -> m.getDeclaringClass() != Object.class && !m.isSynthetic() && !m.isBridge())
                .filter(m -> Modifier.isPublic(m.getModifiers()))
                .map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
