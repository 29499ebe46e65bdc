<?php
// Prints the API of the loaded extension, one line per member, in a stable
// order: what tests/phpt/stubs-match-reflection.phpt compares the stubs with.
// Usage: php -d extension=build/circuit_breaker.so scripts/reflect-extension.php [namespace prefix to strip]

function type_name(?ReflectionType $type, string $strip): string
{
    if ($type === null) {
        return '';
    }
    $name = (string) $type;
    return $strip === '' ? $name : str_replace($strip, '', $name);
}

function describe_class(ReflectionClass $class, string $strip): array
{
    $lines = [];
    $name = $strip === '' ? $class->getName() : str_replace($strip, '', $class->getName());
    $kind = $class->isEnum() ? 'enum' : ($class->isInterface() ? 'interface' : 'class');
    $parent = $class->getParentClass();
    $interfaces = array_map(fn ($i) => str_replace($strip === '' ? "\0" : $strip, '', $i), $class->getInterfaceNames());
    sort($interfaces);
    $lines[] = sprintf('%s %s%s%s%s', $kind, $name, $class->isFinal() && !$class->isEnum() ? ' final' : '',
        $parent ? ' extends ' . str_replace($strip === '' ? "\0" : $strip, '', $parent->getName()) : '',
        $interfaces ? ' implements ' . implode(', ', $interfaces) : '');
    if ($class->isEnum()) {
        foreach ((new ReflectionEnum($class->getName()))->getCases() as $case) {
            $lines[] = sprintf('  case %s = %s', $case->getName(), var_export($case instanceof ReflectionEnumBackedCase ? $case->getBackingValue() : null, true));
        }
    }
    if (!$class->isEnum()) {
        $constants = array_filter($class->getReflectionConstants(), fn ($c) => $c->getDeclaringClass()->getName() === $class->getName());
        usort($constants, fn ($a, $b) => strcmp($a->getName(), $b->getName()));
        foreach ($constants as $constant) {
            $lines[] = sprintf('  const %s = %s', $constant->getName(), var_export($constant->getValue(), true));
        }
    }
    $properties = array_filter($class->getProperties(), fn ($p) => $p->getDeclaringClass()->getName() === $class->getName());
    usort($properties, fn ($a, $b) => strcmp($a->getName(), $b->getName()));
    foreach ($properties as $property) {
        if ($class->isEnum()) {
            continue;
        }
        $lines[] = sprintf('  property %s%s %s $%s', $property->isPublic() ? 'public' : ($property->isProtected() ? 'protected' : 'private'), $property->isReadOnly() ? ' readonly' : '', type_name($property->getType(), $strip), $property->getName());
    }
    $methods = array_filter($class->getMethods(), fn ($m) => $m->getDeclaringClass()->getName() === $class->getName() && !($class->isEnum() && in_array($m->getName(), ['cases', 'from', 'tryFrom'], true)));
    usort($methods, fn ($a, $b) => strcmp(strtolower($a->getName()), strtolower($b->getName())));
    foreach ($methods as $method) {
        $parameters = array_map(fn (ReflectionParameter $p) => trim(sprintf('%s $%s%s', type_name($p->getType(), $strip), $p->getName(), $p->isOptional() ? ' = ?' : '')), $method->getParameters());
        $lines[] = sprintf('  %s %s%sfunction %s(%s)%s', $method->isPublic() ? 'public' : ($method->isProtected() ? 'protected' : 'private'), $method->isStatic() ? 'static ' : '', $method->isAbstract() && !$class->isInterface() ? 'abstract ' : '', $method->getName(), implode(', ', $parameters),
            $method->hasReturnType() ? ': ' . type_name($method->getReturnType(), $strip) : '');
    }
    return $lines;
}

function describe_namespace(string $namespace, string $strip = ''): string
{
    $names = array_merge(get_declared_classes(), get_declared_interfaces());
    $names = array_filter($names, fn ($n) => str_starts_with($n, $namespace));
    sort($names);
    $lines = [];
    foreach ($names as $name) {
        array_push($lines, ...describe_class(new ReflectionClass($name), $strip));
    }
    return implode("\n", $lines) . "\n";
}

if (realpath($_SERVER['SCRIPT_FILENAME'] ?? '') === __FILE__) {
    echo describe_namespace('Zeusi\\CircuitBreaker\\');
}
